"""kit.pool.Pool.tidy() is Worker.tidy(), which Pool inherits: kit/pool.py names no helper
and imports no Pool, yet it is read, for the class and its bases."""
import torch

import kit.pool


def train(loader, model, optimizer):
    for batch in loader:
        loss = model(batch)
        loss.backward()
        optimizer.step()
        kit.pool.Pool.tidy()  # want "CL001 tidy.. runs on every iteration"
    del model
    torch.cuda.empty_cache()
