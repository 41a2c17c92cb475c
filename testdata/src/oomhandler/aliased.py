import torch as t


def step(model, batch):
    while True:
        try:
            out = model(batch)
            break
        except (RuntimeError, ValueError):  # want "CL006 `except \\(RuntimeError, ValueError\\)` catches more than OOM: it calls torch.cuda.empty_cache\\(\\) and retries"
            t.cuda.empty_cache()
    return out


def step2(model, batch):
    for attempt in range(2):
        try:
            return model(batch)
        except BaseException as err:  # want "CL006 .*catches more than OOM.*every BaseException"
            t.cuda.empty_cache()
            print(err)
    return None
