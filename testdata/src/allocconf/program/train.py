import config  # noqa: F401
import torch

torch.cuda.set_per_process_memory_fraction(0.8)
