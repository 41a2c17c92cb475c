"""A script's top level, run by hand: freeing a big tensor and clearing after it is a
person's clean-up between experiments."""
import torch

acts = torch.zeros(1 << 28, device="cuda")
print(acts.sum())
del acts
torch.cuda.empty_cache()
