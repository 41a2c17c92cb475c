import torch


def train(loader, model, optimizer):
    for batch in loader:
        outputs = model(batch)
        loss = outputs.mean()
        loss.backward()
        optimizer.step()
        del loss, outputs
        torch.cuda.empty_cache()  # want "CL001"
        print(torch.cuda.memory_allocated())
        torch.cuda.empty_cache()  # want "CL001"
