"""Why is PyTorch's own release slower than the probe's replay of the same segments?

Times torch.cuda.empty_cache() freeing the segments a memory_snapshot() says one call
releases, in a fresh process, under three conditions:
  clean  - only those segments exist (what the probe's replay does);
  kept   - the segments the call keeps are allocated too, and held;
  churn  - as kept, after 100 cycles of allocating the released sizes in random order with
           small tensors between them, writing them, and freeing them in random order,
           as a training step under a per-step empty_cache() does.
Usage: python3 free_conditions.py SNAPSHOT.json [...]
"""

import json
import random
import statistics
import sys
import time

import torch

MIB = 1 << 20


def request_for(seg):
    """A request whose segment is exactly seg bytes in PyTorch's caching allocator."""
    if seg == 2 * MIB:
        return 512 * 1024  # small pool: a 2 MiB segment
    if seg == 20 * MIB:
        return 5 * MIB  # 1-10 MiB requests get a 20 MiB segment
    return seg  # >= 10 MiB: rounded to 2 MiB, and these sizes already are


def frees():
    return torch.cuda.memory_stats().get("num_device_free", 0)


def timed_release(sizes, n=10):
    out, counts = [], []
    for _ in range(n):
        ts = [torch.empty(request_for(s), dtype=torch.uint8, device="cuda") for s in sizes]
        for t in ts:
            t.fill_(1)
        del ts
        torch.cuda.synchronize()
        f0 = frees()
        t0 = time.perf_counter()
        torch.cuda.empty_cache()
        out.append((time.perf_counter() - t0) * 1e3)
        counts.append(frees() - f0)
    return statistics.median(out), min(out), max(out), statistics.median(counts)


def churn(sizes, cycles, rng):
    for _ in range(cycles):
        order = sizes[:]
        rng.shuffle(order)
        ts = []
        for s in order:
            ts.append(torch.empty(request_for(s), dtype=torch.uint8, device="cuda"))
            ts.append(torch.empty(rng.choice((4096, 65536, 300000)), dtype=torch.uint8, device="cuda"))
        for t in ts:
            t.fill_(2)
        rng.shuffle(ts)
        while ts:
            ts.pop()
        torch.cuda.empty_cache()


def main():
    rng = random.Random(0)
    for path in sys.argv[1:]:
        segs = json.load(open(path))
        released = [s["total_size"] for s in segs if s["allocated_size"] == 0]
        kept = [s["total_size"] for s in segs if s["allocated_size"] != 0]
        torch.cuda.empty_cache()
        res = {"snapshot": path, "released": len(released), "released_gib": sum(released) / 2**30}
        res["clean"] = timed_release(released)
        held = [torch.empty(request_for(s), dtype=torch.uint8, device="cuda") for s in kept]
        res["kept"] = timed_release(released)
        churn(released, 100, rng)
        res["churn"] = timed_release(released)
        del held
        torch.cuda.empty_cache()
        print(json.dumps(res), flush=True)


if __name__ == "__main__":
    main()
