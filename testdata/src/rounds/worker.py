"""self._free is flush_all, a function only once kit/jobs.py is parsed; train reads the
binding first, evaluate from what train's lookup kept."""
import torch

from kit.jobs import flush_all


class Worker:
    def __init__(self, model):
        self.model = model
        self._free = flush_all

    def train(self, loader):
        for batch in loader:
            self.model(batch)
            self._free()  # want "CL001 flush_all.. runs on every iteration"

    def evaluate(self, loader):
        for batch in loader:
            self.model(batch)
            self._free()  # want "CL001 flush_all.. runs on every iteration"


def warm_up():
    torch.cuda.empty_cache()
