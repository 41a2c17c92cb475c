"""free_cache comes from kit/memory_utils.py through kit/__init__.py's `import *`."""
from kit import free_cache


def train(loader, model, optimizer):
    for batch in loader:
        loss = model(batch)
        loss.backward()
        optimizer.step()
        free_cache()  # want "CL001 free_cache.. runs on every iteration"
