import torch


def entraîner(loader, modèle, opt):
    for lot in loader:
        modèle(lot).backward()
        opt.step()
        torch.cuda.empty_cache()
