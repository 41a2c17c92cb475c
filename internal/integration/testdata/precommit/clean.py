import torch


def train(model, loader, optimizer):
    for batch in loader:
        optimizer.zero_grad()
        loss = model(batch).sum()
        loss.backward()
        optimizer.step()


def shutdown(model):
    del model
    # Once, after the model is gone: a legitimate use.
    torch.cuda.empty_cache()
