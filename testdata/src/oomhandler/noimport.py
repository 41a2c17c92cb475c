from torch.cuda import empty_cache


def step(model, batch):
    # Reported, but with no fix: the file binds no name through which to reach
    # torch.cuda.OutOfMemoryError.
    try:
        return model(batch)
    except RuntimeError:  # want "CL006 `except RuntimeError` catches more than OOM: it calls torch.cuda.empty_cache\\(\\) and carries on for every RuntimeError .*swallows the real error"
        empty_cache()
        return None
