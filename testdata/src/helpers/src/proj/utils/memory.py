import gc

import torch


def free_gpu_memory():
    gc.collect()
    torch.cuda.empty_cache()


def maybe_free(step, every=50):
    if step % every == 0:
        torch.cuda.empty_cache()


def ping_pong(n):
    # Mutual recursion must terminate.
    if n:
        pong(n - 1)
    torch.cuda.empty_cache()


def pong(n):
    ping_pong(n)
