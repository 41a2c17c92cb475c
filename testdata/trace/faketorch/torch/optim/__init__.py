from . import optimizer
from .optimizer import Optimizer


class SGD(Optimizer):
    pass


__all__ = ["optimizer", "Optimizer", "SGD"]
