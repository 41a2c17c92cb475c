from . import module

__all__ = ["module"]
