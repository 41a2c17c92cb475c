"""tools/io.py defines save() itself, calling no helper, and imports no save: it is not
read for `io.save(...)`, though save is a function's name here (the prefilter's guess that
a module re-exports a helper is held to its import statements)."""
import torch

from tools import io


def save(model):
    torch.cuda.empty_cache()
    torch.save(model.state_dict(), "model.pt")


def train(loader, model, optimizer):
    for batch in loader:
        loss = model(batch)
        loss.backward()
        optimizer.step()
        io.save(model)
