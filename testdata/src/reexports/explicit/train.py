"""release_all comes from kit/core/memory.py through kit/__init__.py and kit/api.py."""
from kit import release_all


def train(loader, model, optimizer):
    for batch in loader:
        loss = model(batch)
        loss.backward()
        optimizer.step()
        release_all()  # want "CL001 release_all.. runs on every iteration"
