import torch


def train(model, loader, optimizer):
    for batch in loader:
        optimizer.zero_grad()
        loss = model(batch).sum()
        loss.backward()
        optimizer.step()
        torch.cuda.empty_cache()
