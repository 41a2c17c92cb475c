import torch


def free(level):
    # Two cache calls under different conditions: each is followed up to free()'s callers
    # on its own, so maybe_free()'s call site below is judged twice.
    if level > 1:
        torch.cuda.empty_cache()
    if level > 2:
        torch.cuda.empty_cache()


def maybe_free(force):
    if force:
        free(3)


def train(model, opt, loader):
    for batch in loader:
        opt.zero_grad()
        model(batch).backward()
        opt.step()
        maybe_free(False)  # the literal keeps maybe_free() from calling free(): nothing to report
