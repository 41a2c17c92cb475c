"""A helper that dispatches to each device's empty_cache: the CUDA branch is behind a device
check, another branch behind a test cachelint cannot read. One call site, one finding."""
import torch


def free_memory():
    if torch.cuda.is_available():
        torch.cuda.empty_cache()
    elif hasattr(torch, "xpu") and torch.xpu.is_available():
        torch.xpu.empty_cache()


def train(loader, model, opt):
    for batch in loader:
        model(batch).sum().backward()
        opt.step()
        free_memory()  # want "CL001 free_memory.. runs on every iteration"
