"""Model switches read from what the statements beside a once-run call do, through the
functions they call (issue 13, class 1: effects), and look-alikes that run on every step."""
import gc

import torch
from diffusers import DiffusionPipeline


class ImageEngine(torch.nn.Module):
    pass


class Sampler:
    def __init__(self):
        self.renderer = ImageEngine()  # bound to a module: `del self.renderer` frees a model
        self.cache = {}  # a dict: `del self.cache` frees none

    def close(self):
        del self.renderer
        torch.cuda.empty_cache()

    def reset(self):
        del self.cache
        torch.cuda.empty_cache()


def _load(path):
    return DiffusionPipeline.from_pretrained(path)


def run_variant(path):
    torch.cuda.empty_cache()
    pipe = _load(path)  # the callee loads: a switch to the next variant's pipeline
    return pipe("a prompt")


def restore(engine, path):
    torch.cuda.empty_cache()
    _, client_state = engine.load_checkpoint(path)  # a load inside an assignment
    return client_state


def teardown(holder):
    release(holder)
    torch.cuda.empty_cache()


def release(holder):
    holder.image_model = None
    del holder.image_model


class Trainer:
    def get_model(self):
        return self.model

    def _get_model_forward_kwargs(self, batch):
        return {"x": batch}

    def train_step(self, batch):
        loss = self.model(**self._get_model_forward_kwargs(batch)).sum()  # no loader
        loss.backward()
        self.ema.step(self.get_model())  # an accessor on every step, not a switch
        torch.cuda.empty_cache()  # want "CL001 torch.cuda.empty_cache.. runs on every step"


def decode(vae_info, latents):
    with vae_info.model_on_device() as vae:  # the manager loads the VAE for its body
        latents = latents.to(vae.device)
        torch.cuda.empty_cache()
        return vae.decode(latents)


def drop_quantized(quantized_model):
    del quantized_model
    for _ in range(3):  # the same clean-up thrice, beside the `del`
        gc.collect()
        torch.cuda.empty_cache()


def warm_up(model, x, n, old_model):
    del old_model
    for _ in range(n):  # n passes of work, not a repeat of the clean-up: the `del` is not beside each
        y = model(x)
        del y
        torch.cuda.empty_cache()  # want "CL001 torch.cuda.empty_cache.. runs on every iteration"


def after_training(engine, evaluate):
    evaluate(engine)
    engine.destroy()  # DeepSpeed's engine frees its model and optimizer
    torch.cuda.empty_cache()


def resume(model):
    model.reload_states(non_blocking=True)  # DeepSpeed moves the states back onto the GPU
    torch.cuda.empty_cache()


class InferenceEngine(torch.nn.Module):
    pass


def build_env(controller):
    torch.cuda.empty_cache()
    engine = InferenceEngine(controller)  # a model built anew after the clear
    return engine


def per_case(cases):
    for case in cases:
        build_env(case)  # each case builds its engine: a switch per case
