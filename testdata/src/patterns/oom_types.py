import requests
import torch
from torch.cuda import OutOfMemoryError as OOM


def train_and_report(urls, loader, model, optimizer):
    for batch in loader:
        loss = model(batch)
        loss.backward()
        optimizer.step()
        try:
            requests.post(urls[0], json={"loss": loss.item()})
        except requests.RequestException:
            # A network error, not an OOM: this clears the cache on every failed post, and
            # how often a post fails cannot be told.
            torch.cuda.empty_cache()  # want "CL004 .*when `except requests.RequestException`"


def train_skipping_oom(loader, model, optimizer):
    for batch in loader:
        try:
            loss = model(batch)
        except OOM:
            torch.cuda.empty_cache()
            continue
        loss.backward()
        optimizer.step()


def train_skipping_bad_batches(loader, model, opt):
    # A broad handler that clears and skips the batch: an error path, not an OOM retry, and
    # not every step either.
    for batch in loader:
        try:
            model(batch).backward()
            opt.step()
        except Exception:
            torch.cuda.empty_cache()  # want "CL004 .*when `except Exception`"
            continue


def load_or_clean_up(build, device):
    try:
        return build(device)
    except Exception:
        torch.cuda.empty_cache()  # clean-up on the way out, re-raised: no OOM retry
        raise
