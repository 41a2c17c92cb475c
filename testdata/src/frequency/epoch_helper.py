import torch


def train_one_epoch(loader, model, optimizer):
    for batch in loader:
        loss = model(batch)
        loss.backward()
        optimizer.step()
    torch.cuda.empty_cache()


def train_step(batch, model, optimizer):
    loss = model(batch)
    loss.backward()
    optimizer.step()
    torch.cuda.empty_cache()


def main(loader, model, optimizer, epochs):
    for epoch in range(epochs):
        train_one_epoch(loader, model, optimizer)  # want "CL003 train_one_epoch\\(\\) runs once per epoch in the epoch loop at line 20.*via train_one_epoch\\(\\) -> torch.cuda.empty_cache\\(\\) at .*epoch_helper.py:9"
        for batch in loader:
            train_step(batch, model, optimizer)  # want "CL001 train_step\\(\\) runs on every iteration of the step loop at line 22"


def standalone_step(batch, model, optimizer):
    loss = model(batch)
    loss.backward()
    optimizer.step()
    torch.cuda.empty_cache()  # want "CL001 .*runs on every step: `standalone_step`, which runs a training step"
