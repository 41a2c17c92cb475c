from . import optimizer
from .optimizer import Optimizer


class SGD(Optimizer):
    pass


# As torch does: the submodule's name is deleted from the package (the tracer must import
# torch.optim.optimizer by name).
del optimizer

__all__ = ["Optimizer", "SGD"]
