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
            # A network error, not an OOM: this clears the cache on every failed post.
            torch.cuda.empty_cache()  # want "CL001"


def train_skipping_oom(loader, model, optimizer):
    for batch in loader:
        try:
            loss = model(batch)
        except OOM:
            torch.cuda.empty_cache()
            continue
        loss.backward()
        optimizer.step()
