"""Class 5: methods reached through framework and torch.nn bases."""
import torch
from torch import nn
from transformers import Trainer


class ChunkedConv(nn.Conv2d):
    def forward(self, x):
        out = super().forward(x)
        torch.cuda.empty_cache()  # want "CL001 .*`forward` is called by PyTorch once per batch"
        return out


class MyTrainer(Trainer):
    def _save_checkpoint(self, model, trial):
        super()._save_checkpoint(model, trial)
        torch.cuda.empty_cache()  # want "CL002 .*_save_checkpoint"

    def _prepare_inputs(self, inputs):
        torch.cuda.empty_cache()  # want "CL001 .*_prepare_inputs"
        return inputs


class Plain:
    def forward(self, x):
        torch.cuda.empty_cache()  # not a module: silent
        return x


class Offloader:
    def prepare(self):
        torch.cuda.empty_cache()


class Pipeline:
    def __init__(self):
        self.offloader = Offloader()

    def denoise(self, unet, timesteps, latents, scheduler):
        for t in timesteps:
            self.offloader.prepare()  # want "CL001 prepare.. runs on every iteration of the step loop"
            latents = scheduler.step(unet(latents, t), t, latents)
        return latents


class BaseTrainer:
    def train_loop(self, loader):
        for batch in loader:
            self.hook_train_loop(batch)  # runs the overrides below, each reported where it clears

    def hook_train_loop(self, batch):
        raise NotImplementedError


class SliderTrainer(BaseTrainer):
    def hook_train_loop(self, batch):
        loss = self.model(batch)
        loss.backward()
        self.optimizer.step()
        torch.cuda.empty_cache()  # want "CL001 torch.cuda.empty_cache.. runs on every iteration of the step loop at line 48 .*, which iterates batches or steps, judged by its names, and runs this hook_train_loop.. through `self.hook_train_loop.batch.`"


class Cleaner:
    def flush(self):
        torch.cuda.empty_cache()


def run_steps(loader, model, cleaner: Cleaner):
    for batch in loader:
        model(batch).backward()
        cleaner.flush()  # want "CL001 flush.. runs on every iteration"
