"""Class 3: leak diagnosis compares readings (a peak reset is one when the peak is read after
the measured code, and no model is switched beside); a threshold is a memory-pressure gate."""
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


def evaluate(model, data):
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    model(data)
    peak = torch.cuda.max_memory_reserved()  # the evaluation's own peak: a measurement
    print(f"peak {peak / 2**30:.1f} GiB")


def _load(path):
    from diffusers import DiffusionPipeline

    return DiffusionPipeline.from_pretrained(path)


def probe(path):
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    pipe = _load(path)  # the next configuration's pipeline: a switch first
    pipe("a prompt")
    print(torch.cuda.max_memory_allocated())


def train(model, loader, optimizer, log):
    for batch in loader:
        loss = model(batch)
        loss.backward()
        optimizer.step()
        torch.cuda.empty_cache()  # want "CL001.*step loop"
        torch.cuda.reset_peak_memory_stats()
        log(torch.cuda.max_memory_allocated())


def aggressive_clear(max_retries=3):
    for attempt in range(max_retries):
        before = torch.cuda.memory_reserved()
        gc.collect()
        torch.cuda.empty_cache()  # measures what it frees: its own business
        after = torch.cuda.memory_reserved()
        if before - after < 2**30:
            break


def train_aggressive(model, loader, optimizer):
    for batch in loader:
        model(batch).sum().backward()
        optimizer.step()
        aggressive_clear()  # want "CL001 aggressive_clear.. runs on every iteration"


def clear_and_log(max_retries=3):
    for attempt in range(max_retries):
        # A reading only logged measures nothing: no leak diagnosis, a loop of unknown kind.
        torch.cuda.empty_cache()  # want "CL004"
        print(torch.cuda.memory_reserved())
