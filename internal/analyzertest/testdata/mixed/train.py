import torch


def train(model, loader, optimizer):
    for batch in loader:
        loss = model(batch)
        loss.backward()
        optimizer.step()
        torch.cuda.empty_cache()


def load(build):
    model = build()  # want "CL001"
    return model
