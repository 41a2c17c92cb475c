from .base import Worker


class Pool(Worker):
    """Inherits tidy(); this module names no helper."""
