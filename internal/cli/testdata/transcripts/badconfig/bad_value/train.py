"""A training script with every kind of cache-emptying call."""
import torch
import torch.nn.functional as F

free_gpu = torch.cuda.empty_cache


def train(model, optimizer, loader, epochs):
    for epoch in range(epochs):
        for step, (x, y) in enumerate(loader):
            try:
                loss = F.cross_entropy(model(x.cuda()), y.cuda())
            except torch.cuda.OutOfMemoryError:
                torch.cuda.empty_cache()
                continue
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            torch.cuda.empty_cache()
            if step % 50 == 0:
                free_gpu()
        torch.cuda.empty_cache()


# torch.cuda.empty_cache() in a comment is not a call
print("torch.cuda.empty_cache()")
torch.cuda.empty_cache()
