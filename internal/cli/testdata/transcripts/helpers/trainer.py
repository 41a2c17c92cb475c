from lib.memory import clear_devices, free_gpu_memory


class Trainer:
    def __init__(self, model, loader, optimizer):
        self.model, self.loader, self.optimizer = model, loader, optimizer

    def _cleanup(self):
        free_gpu_memory()

    def fit(self):
        for batch in self.loader:
            self.model(batch).sum().backward()
            self.optimizer.step()
            self._cleanup()
            clear_devices([0, 1])

    def close(self):
        self._cleanup()
