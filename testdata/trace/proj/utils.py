import torch


def free_gpu():
    torch.cuda.empty_cache()


def run_safely(step):
    try:
        if step % 3 == 0:
            raise ValueError("bad batch")
    except ValueError:
        torch.cuda.empty_cache()
