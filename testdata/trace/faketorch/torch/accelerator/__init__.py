from torch import _clock


def empty_cache():
    _clock.ALLOC.empty_cache()
