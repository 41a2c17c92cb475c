import torch

EMPTY_CACHE_EVERY = 10


def evaluate(model, loader):
    for batch in loader:
        model(batch)


def train(model, opt, train_loader, val_loader, grad_accum):
    for step, batch in enumerate(train_loader):
        for micro in batch.split(grad_accum):
            model(micro).loss.backward()
        opt.step()
        if step % 500 == 0:
            evaluate(model, val_loader)
        if step % EMPTY_CACHE_EVERY == 0:
            torch.cuda.empty_cache()  # want "CL002 .*every 10 iterations of the step loop at line 12"


def ppo(policy, opt, iter_dataloader, num_total_batches, minibatches):
    for update in range(num_total_batches):
        data = next(iter_dataloader)
        for mb in minibatches(data):
            policy(mb).loss.backward()
            opt.step()
            torch.cuda.empty_cache()  # want "CL001"
        torch.cuda.empty_cache()  # want "CL003 .*outer loop at line 23.*holds a step loop"
