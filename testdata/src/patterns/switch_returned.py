"""A name judged by what a project function returned into it (issue 13, class 2): a
generator function handed back is no GAN's generator; a network handed back is a model."""
import torch


class Generator(torch.nn.Module):
    pass


def get_feature_reader(paths):
    def iterate():
        for p in paths:
            yield p

    return iterate, len(paths)


def get_networks():
    generator = Generator()
    return generator, 3


def extract(paths):
    generator, count = get_feature_reader(paths)
    feats = list(generator())
    del generator
    torch.cuda.empty_cache()
    return feats, count


def swap():
    generator, steps = get_networks()
    del generator
    torch.cuda.empty_cache()
    return steps
