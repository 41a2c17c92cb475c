"""Class 5: calls reached through device namespaces, torch hook registrars, partials and
parameter defaults."""
import functools

import torch
from torch.mps import empty_cache as mps_empty

_DEVICE = torch.cuda


def get_device_module(name="cuda"):
    return getattr(torch, name)


def get_torch_device():
    try:
        return getattr(torch, "npu")
    except AttributeError:
        return torch.cuda


def get_logger():
    return None


def train_namespace(loader, model, opt):
    for batch in loader:
        model(batch).sum().backward()
        opt.step()
        get_device_module().empty_cache()  # want "CL001 getattr.torch"


def train_module_alias(loader, model, opt):
    for batch in loader:
        model(batch).sum().backward()
        opt.step()
        _DEVICE.empty_cache()  # want "CL001 torch.cuda.empty_cache"


def train_imported_function(loader, model, opt):
    for batch in loader:
        model(batch).sum().backward()
        opt.step()
        mps_empty()  # want "CL001 torch.mps.empty_cache"


def train_bound_device(loader, model, opt):
    device = get_torch_device()
    for batch in loader:
        model(batch).sum().backward()
        opt.step()
        device.empty_cache()  # want "CL001 torch.cuda.empty_cache"


def evaluate_on(loader, model):
    # `device` is bound again here, later in the file: the binding in train_bound_device
    # is still the one that reaches its call.
    for batch in loader:
        device = batch.device
        model(batch.to(device))
        device.empty_cache()  # a tensor's device, no device module: silent


dev = get_torch_device()


def train_module_device(loader, model, opt):
    for batch in loader:
        model(batch).sum().backward()
        opt.step()
        dev.empty_cache()  # want "CL001 torch.cuda.empty_cache"


def train_passed_device(loader, model, opt, dev):
    for batch in loader:
        model(batch).sum().backward()
        opt.step()
        dev.empty_cache()  # a parameter, whatever the caller passes: silent


def train_look_alike(loader, model, opt, cache):
    for batch in loader:
        model(batch).sum().backward()
        opt.step()
        get_logger().empty_cache()  # returns no device module: silent
        cache.empty_cache()  # an unknown object: silent


def _hook(module, inputs, output):
    torch.cuda.empty_cache()  # want "CL001 .*registered at bindings.py:94 .*every forward of its module"


def attach(model):
    model.register_forward_hook(_hook)


def _on_load(module, state):
    torch.cuda.empty_cache()  # a load-time hook is no per-step hook: silent


def attach_load(model):
    model.register_load_state_dict_post_hook(_on_load)


def clear():
    torch.cuda.empty_cache()


def train_partial(loader, model, opt):
    cleanup = functools.partial(clear)
    for batch in loader:
        model(batch).sum().backward()
        opt.step()
        cleanup()  # want "CL001 clear.. runs on every iteration"


def train_default(loader, model, opt, cleanup=clear):
    for batch in loader:
        model(batch).sum().backward()
        opt.step()
        cleanup()  # want "CL001 clear.. runs on every iteration"


def train_shadowed(loader, model, opt, clear):
    for batch in loader:
        model(batch).sum().backward()
        opt.step()
        clear()  # a parameter, not the module's clear(): silent


def separate_forward(model, batch):
    out = model(batch["chosen"])
    torch.cuda.empty_cache()
    return out


def concatenated_forward(model, batch):
    return model(batch["all"])


def log_metrics(metrics):
    torch.cuda.empty_cache()
    return metrics


class DPOModule:
    """A function chosen once and kept in an attribute: `self._forward_fn(...)` runs it."""

    def __init__(self, model, concatenated):
        self.model = model
        self._forward_fn = concatenated_forward if concatenated else separate_forward
        self._report = functools.partial(log_metrics)
        self.name = "dpo"

    def fit_dpo(self, loader, opt):
        for batch in loader:
            loss = self._forward_fn(self.model, batch)  # want "CL001 separate_forward.. runs on every iteration"
            loss.backward()
            opt.step()
        self._report({})  # after the loop: silent


def _mps_clear():
    torch.mps.empty_cache()


def _no_clear():
    return None


_CLEARERS = {"cuda": torch.cuda.empty_cache, "mps": _mps_clear}
_LOGGERS = {"cuda": get_logger, "cpu": _no_clear}


def train_tables(loader, model, opt, dev):
    for batch in loader:
        model(batch).sum().backward()
        opt.step()
        {"cuda": torch.cuda.empty_cache, "mps": _mps_clear}[dev]()  # want "CL001 torch.cuda.empty_cache.. runs on every iteration"
        _CLEARERS[dev]()  # want "CL001 torch.cuda.empty_cache.. runs on every iteration"
        _LOGGERS[dev]()  # a table with no clearing entry: silent
    (_mps_clear,)[0]()  # after the loop: silent


class ExperimentConfig:
    """A property that hands out a function: `args.forward_fn(...)` runs what it returns."""

    concatenated = False
    packing = False

    @property
    def forward_fn(self):
        fn = concatenated_forward if self.concatenated else separate_forward
        if self.packing:
            fn = functools.partial(fn, packing=True)
        return fn

    @property
    def logger(self):
        return get_logger


def tune(args: ExperimentConfig, loader, model, opt):
    for batch in loader:
        loss = args.forward_fn(model, batch)  # want "CL001 separate_forward.. runs on every iteration"
        loss.backward()
        opt.step()
        args.logger()  # returns a function that does not clear: silent
