"""Callables kept in the fields of records: a registry of device specs, each built with the
function that empties its cache, called through the field (xinference's device registry
has this shape)."""
import inspect
from dataclasses import dataclass
from typing import Callable, Optional

import torch


@dataclass
class DeviceSpec:
    name: str
    is_available: Callable[[], bool]
    empty_cache_fn: Optional[Callable] = None
    log_fn: Optional[Callable] = None


def _mps_clear():
    torch.mps.empty_cache()


REGISTRY: list[DeviceSpec] = [
    DeviceSpec(name="cuda", is_available=torch.cuda.is_available, empty_cache_fn=lambda: torch.cuda.empty_cache(), log_fn=print),
    DeviceSpec(name="mps", is_available=torch.backends.mps.is_available, empty_cache_fn=_mps_clear),
]


def empty_cache():
    for spec in REGISTRY:
        if spec.is_available() and spec.empty_cache_fn:
            spec.empty_cache_fn()


def find_device():
    for spec in REGISTRY:
        if spec.is_available():
            return spec
    return None


def clear_found():
    spec = find_device()
    spec.empty_cache_fn()


def log_found(msg):
    spec = find_device()
    spec.log_fn(msg)


def train_registry(loader, model, opt):
    for batch in loader:
        model(batch).sum().backward()
        opt.step()
        empty_cache()  # want "CL001 empty_cache.. runs on every iteration"


def train_found(loader, model, opt):
    for batch in loader:
        model(batch).sum().backward()
        opt.step()
        clear_found()  # want "CL001 clear_found.. runs on every iteration"


# Look-alikes: a field that holds no cache-emptying callable, and an object whose class
# does not declare the field (its constructor may keep the value under any name).
class Runner:
    def __init__(self, empty_cache_fn=None):
        self.fn = empty_cache_fn


def train_logging(loader, model, opt):
    for batch in loader:
        model(batch).sum().backward()
        opt.step()
        log_found("step")


def train_undeclared(loader, model, opt):
    runner = Runner(empty_cache_fn=torch.cuda.empty_cache)
    for batch in loader:
        model(batch).sum().backward()
        opt.step()
        runner.empty_cache_fn()


def train_inspects(loader, model, opt):
    for batch in loader:
        model(batch).sum().backward()
        opt.step()
        if "device" in inspect.signature(empty_cache).parameters:  # looks at it, runs nothing
            opt.zero_grad()


# A field declared with a default and set after construction is state, not a fixed record:
# the gate on it is read as what it is (a save flag here), not as fixed when built.
@dataclass
class TrainState:
    should_save: bool = False


class Loop:
    def __init__(self):
        self.state = TrainState()

    def on_step_end(self, step):
        self.state.should_save = step % 100 == 0

    def fit(self, loader, model, opt):
        for batch in loader:
            model(batch).sum().backward()
            opt.step()
            state = self.state
            if state.should_save:
                torch.cuda.empty_cache()  # want "CL002 torch.cuda.empty_cache.. runs periodically"
