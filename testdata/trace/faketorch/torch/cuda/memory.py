from torch import _clock

__all__ = ["empty_cache", "memory_reserved", "mem_get_info", "memory_stats", "memory_stats_as_nested_dict"]


def empty_cache():
    _clock.ALLOC.empty_cache()


def memory_reserved(device=None):
    _clock.count("memory_stats")  # torch flattens memory_stats() for it
    return _clock.ALLOC.reserved


def mem_get_info(device=None):
    _clock.advance(_clock.MEMINFO_S)
    return _clock.TOTAL - _clock.ALLOC.reserved, _clock.TOTAL


def memory_stats(device=None):
    _clock.count("memory_stats")
    return {"num_alloc_retries": _clock.ALLOC.retries, "reserved_bytes.all.current": _clock.ALLOC.reserved}


def memory_stats_as_nested_dict(device=None):
    _clock.count("nested")
    return {"num_alloc_retries": _clock.ALLOC.retries, "reserved_bytes": {"all": {"current": _clock.ALLOC.reserved}}}
