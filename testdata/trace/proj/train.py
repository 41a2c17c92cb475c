"""A training loop for cachelint trace's tests, on the fake torch in ../faketorch."""

import sys

import torch
from utils import free_gpu, run_safely


def train(steps):
    model = torch.nn.Module(torch.nn.Module())
    opt = torch.optim.SGD(model.parameters())
    for step in range(steps):
        model(step)
        opt.step()
        free_gpu()
        run_safely(step)
    free_gpu()


if __name__ == "__main__":
    train(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
