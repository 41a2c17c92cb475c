from torch.cuda import empty_cache


def step(model, batch):
    # Reported, but with no fix: the file binds no name through which to reach
    # torch.cuda.OutOfMemoryError. The loop retries: the try returns when it succeeds.
    for _ in range(3):
        try:
            return model(batch)
        except RuntimeError:  # want "CL006 `except RuntimeError` catches more than OOM: it calls torch.cuda.empty_cache\\(\\) and retries for every RuntimeError .*hides the real error behind a retry"
            empty_cache()
    return None
