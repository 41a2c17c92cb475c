"""The article's cure: configure the allocator instead of emptying its cache."""
import os

os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True"

import torch  # noqa: E402  (the variable must be set before CUDA initialises)


def preallocate(size_mb=1024):
    chunk = torch.empty(size_mb * 1024 * 1024 // 4, dtype=torch.float32, device="cuda")
    del chunk
