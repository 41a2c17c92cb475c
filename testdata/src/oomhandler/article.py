import gc

import torch
from flask import Flask, request

app = Flask(__name__)


def process(scan):
    return scan


def run_inference(data):
    return data


def process_scans(medical_scans):
    # The article's §3.2 sample: it retries inside the handler, and RuntimeError also
    # catches shape errors and device-side asserts.
    for scan in medical_scans:
        try:
            process(scan)
        except RuntimeError:  # want "CL006 `except RuntimeError` catches more than OOM: it calls torch.cuda.empty_cache\\(\\) and retries"
            torch.cuda.empty_cache()
            process(scan)  # want "CL005 re-runs `process\\(\\)`, the work that failed, inside the except block"


@app.route("/inference", methods=["POST"])
def infer():
    # The article's §3.5 sample: the message test makes it an OOM handler (no CL006), but
    # the retry still runs while the exception is alive.
    try:
        return run_inference(request.data)
    except RuntimeError as e:
        if "CUDA out of memory" in str(e):
            torch.cuda.empty_cache()
            return run_inference(request.data)  # want "CL005 re-runs `run_inference\\(\\)`"


def free_gpu():
    gc.collect()
    torch.cuda.empty_cache()


def step_with_helper(model, batch):
    # Clearing through a project helper counts as clearing.
    try:
        return model(batch)
    except Exception:  # want "CL006 `except Exception` catches more than OOM: it calls free_gpu\\(\\) and retries"
        free_gpu()
        return model(batch)  # want "CL005 .*inside the except block"


def halve(model, batch):
    # A retry loop inside the handler is still a retry inside the handler.
    try:
        return model(batch)
    except torch.cuda.OutOfMemoryError:
        for half in (batch[: len(batch) // 2], batch[len(batch) // 2 :]):
            torch.cuda.empty_cache()
            model(half)  # want "CL005 re-runs `model\\(\\)`"


class Trainer:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.oom_count = 0

    def train_step(self, sample):
        # Silent: fairseq's train_step checks the message, re-raises the rest and skips the
        # batch; zero_grad() in the handler is cleanup, not a retry.
        try:
            self.optimizer.zero_grad()
            loss = self.model(sample)
            loss.backward()
        except RuntimeError as e:
            if "out of memory" in str(e):
                self.oom_count += 1
                self.optimizer.zero_grad()
                torch.cuda.empty_cache()
                return None
            else:
                raise e
        return loss

    def valid_step(self, sample, raise_oom=False):
        # fairseq's valid_step: a recursive retry from inside the handler.
        try:
            return self.model(sample)
        except torch.cuda.OutOfMemoryError:
            if raise_oom:
                raise
            torch.cuda.empty_cache()
            return self.valid_step(sample, raise_oom=True)  # want "CL005 retries by calling `self.valid_step\\(\\)` again inside the except block"


def fallback(model, batch):
    # Silent: the handler runs other work (on the CPU), not the failed call again.
    try:
        return model(batch)
    except torch.cuda.OutOfMemoryError:
        torch.cuda.empty_cache()
        return model.cpu_forward(batch)


def cleanup_and_propagate(model, batch):
    # Silent: a broad handler that clears and re-raises swallows nothing.
    try:
        return model(batch)
    except Exception:
        torch.cuda.empty_cache()
        raise


def discriminates(model, batch):
    # Silent: isinstance tells OOM apart from the rest.
    try:
        return model(batch)
    except RuntimeError as e:
        if not isinstance(e, torch.cuda.OutOfMemoryError):
            raise
        torch.cuda.empty_cache()
        return None


def value_error(batch):
    # Silent: a ValueError handler cannot catch an OOM.
    try:
        return int(batch)
    except ValueError:
        torch.cuda.empty_cache()
        return int(batch)


def largest_batch(model, data):
    # Silent: a batch-size search clears in the handler and retries on the next iteration,
    # after the handler has ended.
    for bs in (64, 32, 16, 8):
        try:
            return model(data[:bs])
        except torch.cuda.OutOfMemoryError:
            torch.cuda.empty_cache()
    return None
