import torch
import torch.nn as nn
from ignite.engine import Engine, Events
from mmengine.hooks import Hook


class EmptyCacheHook(Hook):
    def after_train_iter(self, runner, batch_idx, data_batch=None, outputs=None):
        torch.cuda.empty_cache()  # want "CL001 .*MMEngine/MMCV"

    def after_train_epoch(self, runner):
        torch.cuda.empty_cache()  # want "CL003"


trainer = Engine(lambda engine, batch: None)


@trainer.on(Events.ITERATION_COMPLETED)
def clear(engine):
    torch.cuda.empty_cache()  # want "CL001 .*Ignite"


@trainer.on(Events.ITERATION_COMPLETED(every=100))
def clear_sometimes(engine):
    torch.cuda.empty_cache()  # want "CL002 .*every 100 iterations"


@trainer.on(Events.EPOCH_COMPLETED)
def clear_epoch(engine):
    torch.cuda.empty_cache()  # want "CL003"


def registered(engine):
    torch.cuda.empty_cache()  # want "CL001"


trainer.add_event_handler(Events.ITERATION_COMPLETED, registered)


class Net(nn.Module):
    def forward(self, x):
        torch.cuda.empty_cache()  # want "CL001 .*`forward` is called by PyTorch once per batch"
        return x


class Plain:
    def forward(self, x):
        torch.cuda.empty_cache()
        return x
