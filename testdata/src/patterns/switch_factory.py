"""A model built by its class's alternative constructor beside a once-run call (issue 13,
class 1: what is bound, not how it is spelt), and look-alikes: a factory of a class that is
no model, a plain method called on a model class."""
import torch


class Vocoder(torch.nn.Module):
    @classmethod
    def from_config(cls, config):
        return cls()

    def describe(self):
        return "vocoder"


class Registry:
    @staticmethod
    def create(config):
        return {"config": config}


def reload(config):
    torch.cuda.empty_cache()
    model = Vocoder.from_config(config)
    return model


def refresh(config):
    torch.cuda.empty_cache()
    table = Registry.create(config)
    return table


def report(model):
    torch.cuda.empty_cache()
    text = Vocoder.describe(model)
    return text
