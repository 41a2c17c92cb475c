from torch import _clock

__all__ = ["empty_cache", "memory_reserved", "mem_get_info", "memory_stats"]


def empty_cache():
    _clock.ALLOC.empty_cache()


def memory_reserved(device=None):
    return _clock.ALLOC.reserved


def mem_get_info(device=None):
    _clock.advance(_clock.MEMINFO_S)
    return _clock.TOTAL - _clock.ALLOC.reserved, _clock.TOTAL


def memory_stats(device=None):
    return {"num_alloc_retries": _clock.ALLOC.retries, "reserved_bytes.all.current": _clock.ALLOC.reserved}
