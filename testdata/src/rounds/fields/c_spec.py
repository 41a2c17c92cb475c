from dataclasses import dataclass
from typing import Callable


@dataclass
class Spec:
    free_fn: Callable
