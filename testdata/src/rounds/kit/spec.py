from dataclasses import dataclass
from typing import Callable, Optional

from kit.memory import cleanup


@dataclass
class DeviceSpec:
    name: str
    empty_cache_fn: Optional[Callable] = None


def reset():
    cleanup()
