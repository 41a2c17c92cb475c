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


def report_free(dev):
    torch.cuda.empty_cache()
    free, total = torch.cuda.mem_get_info(dev)  # only logged: no baseline
    print(f"{free / 2**30:.1f} GiB free of {total / 2**30:.1f}")


def step_cost(step, log):
    torch.cuda.empty_cache()
    before = torch.cuda.memory_allocated()  # a baseline the subtraction below compares
    step()
    after = torch.cuda.memory_allocated()
    log(after - before)
