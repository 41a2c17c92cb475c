import torch


def save(model):
    torch.save(model.state_dict(), "checkpoint.pt")
