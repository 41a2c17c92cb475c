"""A trainer class whose batch loop hides the call behind two helpers in another file."""
import torch

from utils.memory import free_gpu_memory


class Trainer:
    def __init__(self, model, optimizer, loader):
        self.model = model
        self.optimizer = optimizer
        self.loader = loader

    def _cleanup(self):
        free_gpu_memory()

    def fit(self):
        for batch in self.loader:
            loss = self.model(batch).mean()
            loss.backward()
            self.optimizer.step()
            self.optimizer.zero_grad()
            self._cleanup()  # CL001: _cleanup() -> free_gpu_memory() -> torch.cuda.empty_cache()

    def close(self):
        # Once, at shutdown: fine.
        free_gpu_memory()
