"""The override empties the cache; only its base class, in another module, shows the loop."""
import torch

from loops.base import LoopBase


class Trainer(LoopBase):
    def on_step(self, batch):
        loss = self.model(batch)
        loss.backward()
        torch.cuda.empty_cache()  # want "CL001 torch.cuda.empty_cache.. runs on every iteration of the step loop at .*base.py"
        return loss
