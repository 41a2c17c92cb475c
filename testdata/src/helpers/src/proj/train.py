import proj.utils.memory as mem
from proj.utils.memory import free_gpu_memory as fgm
from proj.utils.memory import maybe_free, ping_pong
from proj.utils import free_all
from . import utils

clean = fgm


class BaseTrainer:
    def cleanup(self):
        fgm()


class Trainer(BaseTrainer):
    def _cleanup(self):
        super().cleanup()

    @classmethod
    def reset(cls):
        mem.free_gpu_memory()

    def fit(self, loader, model, optimizer):
        def inner_clear():
            fgm()

        for step, batch in enumerate(loader):
            loss = model(batch)
            loss.backward()
            optimizer.step()
            self._cleanup()  # want "CL001 _cleanup\\(\\) runs on every iteration.*via _cleanup\\(\\) -> cleanup\\(\\) -> free_gpu_memory\\(\\) -> torch.cuda.empty_cache\\(\\) at .*memory.py:8"
            self.reset()  # want "CL001 reset\\(\\)"
            mem.free_gpu_memory()  # want "CL001 free_gpu_memory\\(\\)"
            clean()  # want "CL001 free_gpu_memory\\(\\)"
            inner_clear()  # want "CL001 inner_clear\\(\\)"
            maybe_free(step)  # want "CL002 maybe_free\\(\\) runs every 50 iterations"
            utils.memory.free_gpu_memory()  # want "CL001 free_gpu_memory"
            free_all()  # want "CL001 free_gpu_memory"
            ping_pong(3)  # want "CL001 ping_pong"


def setup(model):
    # A helper called only at start-up: once, silent.
    fgm()
    return model
