"""Pool.tidy() is Worker.tidy(), which Pool inherits: kit/__init__.py re-exports Pool from
kit/pools.py by `import *`, and neither names a helper or imports a Pool, yet both are read,
for the class and its bases."""
import torch

from kit import Pool


def train(loader, model, optimizer):
    for batch in loader:
        loss = model(batch)
        loss.backward()
        optimizer.step()
        Pool.tidy()  # want "CL001 tidy.. runs on every iteration"
    del model
    torch.cuda.empty_cache()
