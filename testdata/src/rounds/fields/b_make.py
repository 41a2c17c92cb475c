import torch

from fields.c_spec import Spec


def _free():
    torch.cuda.empty_cache()


def make_spec():
    return Spec(free_fn=_free)
