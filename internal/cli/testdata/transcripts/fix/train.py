import torch


def train(model, loader, optimizer):
    for batch in loader:
        loss = model(batch)
        loss.backward()
        optimizer.step()
        torch.cuda.empty_cache()


def evaluate(model, loader):
    for batch in loader:
        model(batch); torch.cuda.empty_cache()


def infer(model, x):
    try:
        return model(x)
    except Exception:
        torch.cuda.empty_cache()
        return model(x)
