"""A training loop that leaves a phase out of cachelint trace's measurement: its own
benchmark, say, during which the steps are slow and the calls none of the trace's business;
the steps after it run at another speed than those before."""

import sys

import torch
from torch import _clock


def main(n):
    model = torch.nn.Module()
    opt = torch.optim.SGD(model.parameters())
    trace = sys.modules.get("_cachelint_trace")
    for i in range(n):
        if trace is not None and i == 80:
            trace.pause()
        if trace is not None and i == 140:
            trace.resume()
            _clock.STEP_S *= 2  # the machine's speed moved meanwhile
        model(i)
        opt.step()
        torch.cuda.empty_cache()
        if 80 <= i < 140:
            _clock.advance(0.1)


if __name__ == "__main__":
    main(int(sys.argv[1]))
