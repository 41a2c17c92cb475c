import torch
import torch as t
from torch.cuda import empty_cache as ec
from torch import cuda
from deepspeed.accelerator import get_accelerator


def train(loader, model, optimizer, device_type="cuda"):
    dev = getattr(torch, device_type)
    for batch in loader:
        loss = model(batch)
        loss.backward()
        optimizer.step()
        torch.cuda.empty_cache()  # want "CL001 torch.cuda.empty_cache\\(\\) runs on every iteration of the step loop at line 10 \\(`for batch in loader`\\)"
        torch.cuda.memory.empty_cache()  # want "CL001 torch.cuda.memory.empty_cache\\(\\)"
        torch.accelerator.empty_cache()  # want "CL001 torch.accelerator.empty_cache"
        torch.accelerator.memory.empty_cache()  # want "CL001 torch.accelerator.memory.empty_cache"
        torch.mps.empty_cache()  # want "CL001 torch.mps"
        torch.xpu.empty_cache()  # want "CL001 torch.xpu"
        torch.npu.empty_cache()  # want "CL001 torch.npu"
        torch.mlu.empty_cache()  # want "CL001 torch.mlu"
        t.cuda.empty_cache()  # want "CL001 torch.cuda.empty_cache"
        ec()  # want "CL001 torch.cuda.empty_cache"
        cuda.empty_cache()  # want "CL001 torch.cuda.empty_cache"
        getattr(torch, device_type).empty_cache()  # want "CL001 getattr\\(torch, \\.\\.\\.\\).empty_cache\\(\\)"
        dev.empty_cache()  # want "CL001 getattr\\(torch, \\.\\.\\.\\).empty_cache\\(\\)"
        get_accelerator().empty_cache()  # want "CL001 get_accelerator\\(\\).empty_cache"


def train_portable(loader, model, optimizer):
    clear = getattr(getattr(torch, "cuda", None), "empty_cache", None)
    for batch in loader:
        loss = model(batch)
        loss.backward()
        optimizer.step()
        clear()  # want "CL001 torch.cuda.empty_cache\\(\\) runs on every iteration of the step loop at line 32"
