"""Measure what CL005 is about: how much of a failed attempt's memory is still allocated
while its `except torch.cuda.OutOfMemoryError` block runs, and one line after it.

Run on a GPU: python bench/gpu/oom_traceback.py
"""
import torch


def attempt():
    chunks = []
    while True:  # allocate 1 GiB blocks until the device runs out
        chunks.append(torch.empty(1 << 30, dtype=torch.uint8, device="cuda"))


def main():
    gib = 1 << 30
    oom = False
    try:
        attempt()
    except torch.cuda.OutOfMemoryError:
        torch.cuda.empty_cache()
        inside = torch.cuda.memory_allocated() / gib
        inside_reserved = torch.cuda.memory_reserved() / gib
        oom = True
    if oom:
        torch.cuda.empty_cache()
        after = torch.cuda.memory_allocated() / gib
        after_reserved = torch.cuda.memory_reserved() / gib
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    print(f"inside the except block, after empty_cache(): allocated {inside:.1f} GiB, reserved {inside_reserved:.1f} GiB")
    print(f"after leaving it, after empty_cache():        allocated {after:.1f} GiB, reserved {after_reserved:.1f} GiB")


if __name__ == "__main__":
    main()
