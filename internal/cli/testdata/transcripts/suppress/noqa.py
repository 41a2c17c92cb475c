import torch


def train(loader, model, opt):
    for batch in loader:
        model(batch).backward()
        opt.step()
        torch.cuda.empty_cache()  # noqa: CL001
        torch.cuda.empty_cache()  # noqa
        torch.cuda.empty_cache()  # cachelint: ignore[CL001]
        torch.cuda.empty_cache()  # noqa: CL002 (wrong code: still reported)
        torch.cuda.empty_cache()  # cachelint: ignore[CL002]
        torch.cuda.empty_cache()
