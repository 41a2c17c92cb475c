"""Class 5: an override that a base class's step loop runs through `self.hook_train_loop()`."""
import gc

import torch
from jobs.process import BaseTrain
from jobs.process.base_train import CleaningTrain


def flush():
    torch.cuda.empty_cache()
    gc.collect()


class SliderTrainer(BaseTrain):
    def hook_train_loop(self, batch):
        loss = self.network(batch)
        loss.backward()
        flush()  # want "CL001 flush.. runs on every iteration of the step loop at .*base_train.py:12 .*self.hook_train_loop.batch."
        return loss

    def hook_after_training(self):
        flush()  # the base calls this once, after its loop: silent


class Exporter:
    """Not a BaseTrain: nothing runs its hook_train_loop."""

    def hook_train_loop(self, batch):
        torch.cuda.empty_cache()
        return batch


class SamplingTrainer(CleaningTrain):
    def hook_after_training(self):
        super().hook_after_training()  # hands on to the base: not reported here

    def hook_train_loop(self, batch):
        return super().hook_train_loop(batch)
