"""Files beside a project that share names with what it calls; adding them must change nothing."""
import torch


def generate(*args):
    torch.cuda.empty_cache()


def run(*args):
    torch.cuda.empty_cache()


def segment(frame):
    torch.cuda.empty_cache()
    return frame


class Runner:
    def run(self, batch):
        torch.cuda.empty_cache()


class Trainer:
    """Named like transformers' Trainer, which the project imports."""

    def _save_checkpoint(self, model, trial):
        torch.cuda.empty_cache()


class Offloader:
    """Named like the project's own Offloader, which its file defines."""

    def prepare(self):
        pass
