# cachelint: noqa-file
import torch


def train(loader, model, opt):
    for batch in loader:
        model(batch).backward()
        opt.step()
        torch.cuda.empty_cache()
