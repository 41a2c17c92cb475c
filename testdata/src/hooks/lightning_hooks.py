import lightning.pytorch as pl
import torch
from lightning.pytorch.callbacks import Callback


class LitModel(pl.LightningModule):
    def training_step(self, batch, batch_idx):
        loss = self.model(batch)
        torch.cuda.empty_cache()  # want "CL001 .*every batch: `training_step` is called by PyTorch Lightning once per batch"
        return loss

    def on_train_epoch_end(self):
        torch.cuda.empty_cache()  # want "CL003 .*once per epoch"

    def configure_optimizers(self):
        torch.cuda.empty_cache()


class Base(pl.LightningModule):
    pass


class Child(Base):
    def on_train_batch_end(self, outputs, batch, batch_idx):
        torch.cuda.empty_cache()  # want "CL001"


class MemCallback(Callback):
    def on_before_backward(self, trainer, pl_module, loss):
        torch.cuda.empty_cache()  # want "CL001"


class Evaluated(pl.LightningModule):
    # A test step is no training step: the message says what Lightning calls it for.
    def test_step(self, batch, batch_idx):
        out = self.model(batch)
        torch.cuda.empty_cache()  # want "CL001 torch.cuda.empty_cache.. runs on every batch: `test_step` is called by PyTorch Lightning once per batch; one call costs"
        return out
