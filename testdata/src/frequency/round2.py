"""Shapes found in the second real-project check (Megatron-LM, accelerate, diffusers, trl)."""
import torch
import torch.nn as nn
from tqdm import tqdm


def warmup_once(model, opt, train_data_iterator, start_iteration, warmup_steps, train_iters):
    iteration = start_iteration
    while iteration < train_iters:
        model(next(train_data_iterator)).backward()
        opt.step()
        iteration += 1
        if iteration - start_iteration == warmup_steps:
            torch.cuda.empty_cache()  # true once in the run: silent


class OffloadHook:
    pass


class Block(nn.Module):
    def forward(self, x):
        for layer in self.sublayers:
            x = layer(x)
            torch.cuda.empty_cache()  # want "CL001"
        return x


def convert_all(pipelines, convert):
    for pipeline in tqdm(pipelines, "ckpt pipelines"):
        convert(pipeline)
        torch.cuda.empty_cache()  # a loop over pipelines: model_switch, silent


def sample(pipe, prompts, generator, steps):
    for prompt in prompts:
        image = pipe(prompt, generator=generator, num_inference_steps=steps)
        image.save("out.png")
        torch.cuda.empty_cache()  # want "CL003 .*line 36"
        generator = torch.Generator().manual_seed(0)


def startup(model, check_gpu_memory):
    for group in model.parameter_groups_list:
        group.allocate()
        if check_gpu_memory(threshold=0.5):
            torch.cuda.empty_cache()  # want "CL004"
