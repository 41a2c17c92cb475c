import torch


def free_cache():
    torch.cuda.empty_cache()
