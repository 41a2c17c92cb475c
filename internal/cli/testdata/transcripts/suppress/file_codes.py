# cachelint: noqa-file: CL002
import torch


def train(loader, model, opt):
    for step, batch in enumerate(loader):
        model(batch).backward()
        opt.step()
        if step % 10 == 0:
            torch.cuda.empty_cache()
        torch.cuda.empty_cache()
