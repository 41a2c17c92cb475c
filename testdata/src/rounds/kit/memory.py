import torch


def cleanup():
    torch.cuda.empty_cache()
