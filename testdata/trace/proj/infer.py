"""An inference loop (no optimizer) for cachelint trace's tests."""

import sys

import torch
import torch.nn.modules.module as mm


class Net(torch.nn.Module):
    def forward(self, x):
        mm.infer()
        return super().forward(x)  # its child runs too


def main(n):
    net = Net(torch.nn.Module())
    for i in range(n):
        net(i)
        torch.accelerator.empty_cache()


if __name__ == "__main__":
    main(int(sys.argv[1]))
