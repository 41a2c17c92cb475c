import torch


def setup():
    torch.cuda.set_per_process_memory_fraction(1.0)
