"""Context managers: `with m:` runs m's __enter__ and __exit__, whether m is constructed in
the with item, bound to a name or to `self.attr`, or returned by a factory (TRL's activation
offloading context has this shape)."""
import sys

import torch


class Offload:
    def __init__(self, model):
        self.model = model

    def __enter__(self):
        torch.cuda.empty_cache()
        return self

    def __exit__(self, *exc):
        return False


class Timer:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def get_offload_ctx(model):
    ctx = Offload(model)
    return ctx


class Trainer:
    def __init__(self, model):
        self.model = model
        self.offload_ctx = get_offload_ctx(model)
        self.timer = Timer()

    def fit(self, loader, opt):
        for batch in loader:
            with self.offload_ctx:  # want "CL001 Offload.__enter__.. runs on every iteration"
                self.model(batch).sum().backward()
            opt.step()

    def fit_constructed(self, loader, opt):
        for batch in loader:
            with Offload(self.model):  # want "CL001 Offload.__enter__.. runs on every iteration"
                self.model(batch).sum().backward()
            opt.step()

    def fit_once(self, loader, opt):
        with self.offload_ctx:
            for batch in loader:
                with self.timer:
                    self.model(batch).sum().backward()
                opt.step()


class OffloadWithBnb:
    def __init__(self, accelerator_type):
        self.accelerator_type = accelerator_type

    def __enter__(self):
        # Which libraries the run imported, and the accelerator: both fixed for the process.
        if "bitsandbytes" in sys.modules:
            if self.accelerator_type == "xpu":
                torch.xpu.empty_cache()
            else:
                torch.cuda.empty_cache()
        return self

    def __exit__(self, *exc):
        return False


def train_bnb(loader, model, opt):
    ctx = OffloadWithBnb("cuda")
    for batch in loader:
        with ctx:  # want "CL001 OffloadWithBnb.__enter__.. runs on every iteration .* when `\"bitsandbytes\" in sys.modules` is set"
            model(batch).sum().backward()
        opt.step()
