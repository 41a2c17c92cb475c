import torch


def train(model, loader, optimizer):
    for batch in loader:
        loss = model(batch)
        loss.backward()
        optimizer.step()
        torch.cuda.empty_cache()  # want "CL001 torch.cuda.empty_cache\\(\\) runs on every iteration"


def drain(loader):
    for batch in loader:
        torch.cuda.empty_cache()  # want "CL001 torch.cuda.empty_cache\\(\\) runs on every iteration"


def crowded(model, loader):
    for batch in loader:
        model(batch).backward(); torch.cuda.empty_cache()  # want "CL001 torch.cuda.empty_cache\\(\\) runs on every iteration"
