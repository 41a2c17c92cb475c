import gc

import torch


def tidy():
    gc.collect()
    torch.cuda.empty_cache()
