"""Memory helpers, as many projects grow them."""
import gc

import torch


def free_gpu_memory():
    """Collect garbage and hand the cached blocks back to the driver."""
    gc.collect()
    torch.cuda.empty_cache()
