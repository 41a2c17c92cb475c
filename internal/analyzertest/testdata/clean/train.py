import torch


def train(model, loader, optimizer):
    for batch in loader:
        loss = model(batch)
        loss.backward()
        optimizer.step()
        torch.cuda.empty_cache()  # want "CL001 .*step loop"


def switch(old, new):
    del old
    torch.cuda.empty_cache()
    return new
