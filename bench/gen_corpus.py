#!/usr/bin/env python3
"""Generate a large, realistic synthetic Python training-code corpus for benchmarking cachelint.

Most files look like ordinary model/data/utility code and never mention the cache; a few
percent define memory helpers, call them from training loops, or call empty_cache directly,
the way real repositories do. Usage: gen_corpus.py OUTDIR [--files N] [--seed S]

--density real (issue 14) writes instead several projects side by side, each with its own
pyproject.toml, calibrated on 37 public PyTorch projects (bench/gen_real.py holds the numbers, and
bench/README.md): real file sizes, helper names (cleanup, flush, free_memory, train, forward,
...) mentioned in thousands of files that have nothing to do with the cache, a memory-utils
module the trainers import them from, and a few hundred large files calling the cache
directly. Usage: gen_corpus.py OUTDIR --density real [--lines 1000000] [--scale K] [--seed S]
"""
import argparse
import os
import random

MODEL = '''import torch
import torch.nn as nn
import torch.nn.functional as F


class Block{i}(nn.Module):
    """Residual block {i}."""

    def __init__(self, dim={dim}, hidden={hidden}, dropout=0.1):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)
        self.drop = nn.Dropout(dropout)

    def forward(self, x, mask=None):
        h = self.norm(x)
        h = F.gelu(self.fc1(h))
        h = self.drop(self.fc2(h))
        if mask is not None:
            h = h.masked_fill(mask.unsqueeze(-1), 0.0)
        return x + h
'''

DATA = '''import json
import os

from torch.utils.data import Dataset


class Dataset{i}(Dataset):
    def __init__(self, root, split="train", max_len={hidden}):
        self.root = root
        self.items = sorted(os.listdir(os.path.join(root, split)))
        self.max_len = max_len

    def __len__(self):
        return len(self.items)

    def __getitem__(self, idx):
        with open(os.path.join(self.root, self.items[idx])) as f:
            record = json.load(f)
        tokens = record["tokens"][: self.max_len]
        return {{"input_ids": tokens, "label": record.get("label", 0)}}
'''

HELPER = '''import gc

import torch


def free_gpu_memory_{i}():
    gc.collect()
    torch.cuda.empty_cache()


def log_memory_{i}(tag):
    print(tag, torch.cuda.memory_allocated(), torch.cuda.memory_reserved())
'''

TRAIN = '''import torch

from {pkg}.helpers_{j} import free_gpu_memory_{j}


def train_{i}(model, loader, optimizer, epochs={epochs}):
    for epoch in range(epochs):
        for step, batch in enumerate(loader):
            loss = model(batch).mean()
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            if step % {period} == 0:
                free_gpu_memory_{j}()
        torch.cuda.empty_cache()
'''


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--files", type=int, default=None, help="number of files (synthetic: default 20000; real: a cap)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--density", choices=["synthetic", "real"], default="synthetic",
                    help="synthetic: the original corpus with rare helper names; real: issue 14's")
    ap.add_argument("--lines", type=int, default=1_000_000, help="real: lines of the 1x tree")
    ap.add_argument("--projects", type=int, default=0, help="real: projects in the 1x tree (default: one per 250k lines)")
    ap.add_argument("--scale", type=int, default=1, help="real: write K times the 1x tree (K sets of projects; the 1x tree is the first set)")
    args = ap.parse_args()
    if args.density == "real":
        import gen_real
        gen_real.generate(args.out, lines=args.lines, files=args.files, seed=args.seed,
                          projects=args.projects, scale=args.scale)
        return
    if args.files is None:
        args.files = 20000
    rnd = random.Random(args.seed)
    n_helpers = max(1, args.files // 200)
    lines = 0
    for i in range(args.files):
        pkg = f"pkg{i % 50}"
        d = os.path.join(args.out, pkg)
        os.makedirs(d, exist_ok=True)
        r = rnd.random()
        if i < n_helpers:
            name, text = f"helpers_{i}.py", HELPER.format(i=i)
            d = os.path.join(args.out, "pkg0")
        elif r < 0.02:
            j = rnd.randrange(n_helpers)
            name, text = f"train_{i}.py", TRAIN.format(i=i, j=j, pkg="pkg0", epochs=rnd.randint(1, 90), period=rnd.choice([1, 10, 100]))
        elif r < 0.55:
            name, text = f"model_{i}.py", MODEL.format(i=i, dim=rnd.choice([256, 512, 1024]), hidden=rnd.choice([1024, 2048, 4096]))
        else:
            name, text = f"data_{i}.py", DATA.format(i=i, hidden=rnd.choice([128, 512]))
        # Pad with realistic filler so files have real-world sizes (~150-400 lines).
        filler = "".join(f"\n\ndef util_{i}_{k}(x, y=None):\n    \"\"\"Helper {k}.\"\"\"\n    if y is None:\n        y = x\n    return [a + b for a, b in zip(x, y)]\n" for k in range(rnd.randint(15, 50)))
        text += filler
        lines += text.count("\n")
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
    open(os.path.join(args.out, "pyproject.toml"), "w").write("[project]\nname = \"corpus\"\n")
    open(os.path.join(args.out, "pkg0", "__init__.py"), "a").close()
    print(f"wrote {args.files} files, {lines} lines to {args.out}")


if __name__ == "__main__":
    main()
