"""A package module's top level runs at import: freeing a probe tensor there is set-up, not a
person's clean-up (issue 13: interactive cleanup only where a person runs the code)."""
import torch

_probe = torch.empty(1 << 20, device="cuda")
del _probe
torch.cuda.empty_cache()
