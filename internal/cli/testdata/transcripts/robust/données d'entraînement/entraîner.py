import torch


def entraîner(loader, modèle, opt):
    for lot in loader:
        modèle(lot).backward()
        opt.step()
        é = 1; torch.cuda.empty_cache()
