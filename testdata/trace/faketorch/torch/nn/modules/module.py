from torch import _clock
from torch.optim.optimizer import _Handle

_pre, _post = {}, {}


def register_module_forward_pre_hook(hook):
    key = len(_pre) + 1
    _pre[key] = hook
    return _Handle(_pre, key)


def register_module_forward_hook(hook):
    key = len(_post) + 1
    _post[key] = hook
    return _Handle(_post, key)


class Module:
    """A module whose forward does one step's work when it is not trained (inference)."""

    def __init__(self, *children):
        self.children = children

    def __call__(self, *args):
        for h in list(_pre.values()):
            h(self, args)
        out = self.forward(*args)
        for h in list(_post.values()):
            h(self, args, out)
        return out

    def forward(self, *args):
        for c in self.children:
            c(*args)
        return args[0] if args else None

    def parameters(self):
        return []


def infer():
    """An inference step's work (no optimizer to do it)."""
    _clock.ALLOC.step()
