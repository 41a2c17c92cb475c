import torch


def free_gpu():
    torch.cuda.empty_cache()
