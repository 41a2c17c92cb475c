"""`kit.memory` is alpha's or beta's, both as far from here: an import left unresolved, as
it would be unsure, so nothing is reported."""
from kit.memory import tidy


def train(loader, model, optimizer):
    for batch in loader:
        loss = model(batch)
        loss.backward()
        optimizer.step()
        tidy()
