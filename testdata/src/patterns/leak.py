"""Class 3: leak diagnosis compares readings; resetting the peak statistics measures nothing,
and a threshold is a memory-pressure gate."""
import gc

import torch


def start_measure():
    gc.collect()
    torch.cuda.empty_cache()
    return torch.cuda.memory_allocated()


def flush():
    gc.collect()
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()


def main():
    base = start_measure()
    flush()
    print(torch.cuda.memory_allocated() - base)
