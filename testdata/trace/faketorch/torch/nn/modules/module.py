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
        self._fwd_pre, self._fwd_post = {}, {}

    def register_forward_pre_hook(self, hook):
        key = len(self._fwd_pre) + 1
        self._fwd_pre[key] = hook
        return _Handle(self._fwd_pre, key)

    def register_forward_hook(self, hook):
        key = len(self._fwd_post) + 1
        self._fwd_post[key] = hook
        return _Handle(self._fwd_post, key)

    def __call__(self, *args):
        # As torch's Module._call_impl: the hooks are read before and after forward, and a
        # call with no hook at all takes the fast path (counted: "slow_path_calls").
        pre = list(_pre.values()) + list(self._fwd_pre.values())
        if pre or _post or self._fwd_post:
            _clock.count("slow_path_calls")
        for h in pre:
            h(self, args)
        out = self.forward(*args)
        for h in list(_post.values()) + list(self._fwd_post.values()):
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
