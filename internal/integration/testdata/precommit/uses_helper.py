from gpu_utils import free_gpu


def train(model, loader, optimizer):
    for batch in loader:
        loss = model(batch).sum()
        loss.backward()
        optimizer.step()
        free_gpu()
