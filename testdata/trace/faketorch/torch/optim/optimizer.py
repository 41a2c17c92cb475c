from torch import _clock

_post_hooks = {}


class _Handle:
    def __init__(self, table, key):
        self.table, self.key = table, key

    def remove(self):
        self.table.pop(self.key, None)


def register_optimizer_step_post_hook(hook):
    key = len(_post_hooks) + 1
    _post_hooks[key] = hook
    return _Handle(_post_hooks, key)


class Optimizer:
    def __init__(self, params=(), lr=0.1):
        self.params = list(params)

    def zero_grad(self):
        pass

    def step(self, *args, **kwargs):
        _clock.ALLOC.step()
        for hook in list(_post_hooks.values()):
            hook(self, args, kwargs)
