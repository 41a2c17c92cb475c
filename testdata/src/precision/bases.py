"""Class 5: methods reached through framework and torch.nn bases."""
import torch
from torch import nn
from transformers import Trainer


class ChunkedConv(nn.Conv2d):
    def forward(self, x):
        out = super().forward(x)
        torch.cuda.empty_cache()  # want "CL001 .*`forward` is called by PyTorch once per batch"
        return out


class MyTrainer(Trainer):
    def _save_checkpoint(self, model, trial):
        super()._save_checkpoint(model, trial)
        torch.cuda.empty_cache()  # want "CL002 .*_save_checkpoint"

    def _prepare_inputs(self, inputs):
        torch.cuda.empty_cache()  # want "CL001 .*_prepare_inputs"
        return inputs


class Plain:
    def forward(self, x):
        torch.cuda.empty_cache()  # not a module: silent
        return x
