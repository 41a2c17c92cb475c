"""The virtual clock and the fake device's allocator."""

import os

_t = [1000.0]


def now():
    return _t[0]


def advance(seconds):
    _t[0] += seconds


def _env(name, default):
    return type(default)(os.environ.get(name) or default)


STEP_S = _env("FAKE_TORCH_STEP_S", 0.010)
EMPTY_S = _env("FAKE_TORCH_EMPTY_S", 0.005)
REFILL_S = _env("FAKE_TORCH_REFILL_S", 0.003)
STEP_BYTES = _env("FAKE_TORCH_STEP_BYTES", 4 << 30)
TOTAL = _env("FAKE_TORCH_TOTAL_BYTES", 80 << 30)
GROWTH = _env("FAKE_TORCH_GROWTH_BYTES", 0)
MEMINFO_S = _env("FAKE_TORCH_MEMINFO_S", 0.0)  # what one mem_get_info() costs (a driver call)


COUNTS = {}


def count(name):
    """Counts calls of name; written at exit to FAKE_TORCH_COUNTS (a JSON file) when set."""
    COUNTS[name] = COUNTS.get(name, 0) + 1


def _write_counts():
    path = os.environ.get("FAKE_TORCH_COUNTS")
    if path:
        import json

        with open(path, "w") as f:
            json.dump(COUNTS, f)


import atexit  # noqa: E402

atexit.register(_write_counts)


class Allocator:
    def __init__(self):
        self.reserved = 0
        self.retries = 0
        self.calls = 0

    def step(self):
        """One step's work: refill what is missing, then compute."""
        if self.reserved < STEP_BYTES:
            advance(REFILL_S)
            self.reserved = STEP_BYTES
        else:
            self.reserved += GROWTH
            if self.reserved > TOTAL:
                self.retries += 1
                self.reserved = STEP_BYTES
        advance(STEP_S)

    def empty_cache(self):
        self.calls += 1
        if self.reserved:
            advance(EMPTY_S)
            self.reserved = 0


ALLOC = Allocator()
