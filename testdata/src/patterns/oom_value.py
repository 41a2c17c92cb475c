"""An allocation that reports failure by its return value, retried after the clear (issue
13, class 5), and look-alikes: a failure followed by something else, a retry of another call."""
import gc

import torch


class Engine:
    def __init__(self, workspace):
        self.workspace = workspace

    def retake(self):
        ok = self.workspace.acquire()
        if not ok:
            gc.collect()
            torch.cuda.empty_cache()
            ok = self.workspace.acquire()
            if not ok:
                raise RuntimeError("no workspace")

    def give_up(self):
        ok = self.workspace.acquire()
        if not ok:
            torch.cuda.empty_cache()
            self.workspace.report()

    def other(self):
        handle = self.workspace.acquire()
        if handle is None:
            torch.cuda.empty_cache()
            handle = self.workspace.fallback()
        return handle
