"""Two projects side by side, each with a kit package: `kit.memory` here is alpha's (the
nearer), whose tidy() empties the cache."""
from kit.memory import tidy


def train(loader, model, optimizer):
    for batch in loader:
        loss = model(batch)
        loss.backward()
        optimizer.step()
        tidy()  # want "CL001 tidy.. runs on every iteration"
