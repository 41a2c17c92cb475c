import torch


def largest_batch(model, make_batch):
    batch_size = 1024
    while batch_size > 1:
        oom = False
        try:
            model(make_batch(batch_size)).sum().backward()
        except torch.cuda.OutOfMemoryError:
            oom = True
        if not oom:
            return batch_size
        torch.cuda.empty_cache()
        batch_size //= 2
    return 1
