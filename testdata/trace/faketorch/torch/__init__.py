"""A fake torch for cachelint trace's tests: the entry points, the optimizer and module hook
registries and a caching allocator, on a virtual clock.

GPU time is simulated: work advances a virtual clock that replaces time.perf_counter, so what the tracer measures is exactly what this fake charges, on any machine.
Costs come from the environment (seconds): FAKE_TORCH_STEP_S (one step's work),
FAKE_TORCH_EMPTY_S (one empty_cache() that releases something), FAKE_TORCH_REFILL_S (the
refill of what was released, paid by the next step), FAKE_TORCH_STEP_BYTES (what one step
needs reserved), FAKE_TORCH_TOTAL_BYTES (device memory), FAKE_TORCH_GROWTH_BYTES (what each
step without a release adds to the cache: fragmentation), FAKE_TORCH_MEMINFO_S (one
mem_get_info(), a driver call).
"""

import time as _time

from . import _clock

_time.perf_counter = _clock.now

__version__ = "0.0+fake"

from . import cuda, optim, nn, accelerator  # noqa: E402

__all__ = ["cuda", "optim", "nn", "accelerator"]
