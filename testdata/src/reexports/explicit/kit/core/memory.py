import gc

import torch


def release_all():
    gc.collect()
    torch.cuda.empty_cache()
