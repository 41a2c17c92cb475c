from .core.memory import release_all

__all__ = ["release_all"]
