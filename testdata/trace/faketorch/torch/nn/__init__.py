from . import modules
from .modules.module import Module

__all__ = ["modules", "Module"]
