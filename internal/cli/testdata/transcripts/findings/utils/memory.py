"""Memory helpers."""
import gc

import torch


def free_gpu():
    gc.collect()
    torch.cuda.empty_cache()
