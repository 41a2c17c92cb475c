"""empty_cache_fn is a field of a project class only once kit/spec.py is parsed."""
import torch

from kit.spec import DeviceSpec


def _clear():
    torch.cuda.empty_cache()


SPECS = [DeviceSpec(name="cuda", empty_cache_fn=_clear)]


def empty_all():
    for spec in SPECS:
        if spec.empty_cache_fn:
            spec.empty_cache_fn()


def train(loader, model, opt):
    for batch in loader:
        model(batch).sum().backward()
        opt.step()
        empty_all()  # want "CL001 empty_all.. runs on every iteration"
