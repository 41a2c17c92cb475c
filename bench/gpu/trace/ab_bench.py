"""Independent benchmark (no shim) of what torch.cuda.empty_cache() after every step costs
per step, for one workload of workloads.py: phases of K steps without the call alternate
with phases with it (and, for the probe's --sync-ms, with torch.cuda.synchronize() after
every step); each phase starts with an untimed step (see phase()) and is synchronised at
its ends only, and each with-phase is compared with the mean of the plain phases either
side of it, so drift cancels. A memory_snapshot() taken just before a call goes to
SNAPSHOT for `cachelint probe --torch-stats`.

Usage: python3 ab_bench.py NAME OUT.json SNAPSHOT.json [K] [PAIRS] [SYNC_PAIRS]
(defaults 20, 12, max(3, PAIRS / 4); SYNC_PAIRS 0 leaves the synchronize() phases out)
"""

import json
import statistics
import sys
import time

import torch

from workloads import WORKLOADS


def phase(step, start, n, after):
    """n + 1 steps, the first one untimed: it settles the phase (it pays the refill of the
    last phase's final call, or is the first step after a call, for a phase with calls), so
    a timed phase with the call holds n steps, n calls and n refills, and one without holds
    none of them: what `cachelint trace` times in a window."""
    step(start)
    if after is not None:
        after()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for i in range(start + 1, start + 1 + n):
        step(i)
        if after is not None:
            after()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) * 1e3 / n


def snapshot_at_call(step, i, path):
    """Writes the memory_snapshot() where the call would run, in the regime the per-step call
    creates, for `cachelint probe --torch-stats`; returns the next step's index."""
    phase(step, i, 3, torch.cuda.empty_cache)
    i += 4
    step(i)
    i += 1
    torch.cuda.synchronize()
    with open(path, "w") as f:
        json.dump(torch.cuda.memory_snapshot(), f)
    torch.cuda.empty_cache()
    return i


def counters():
    """(segments allocated, segments freed, bytes reserved) so far: memory_stats()' counts of
    cudaMalloc and cudaFree calls."""
    s = torch.cuda.memory_stats()
    return s.get("num_device_alloc", -1), s.get("num_device_free", -1), s.get("reserved_bytes.all.current", 0)


def synced_steps(step, i, k, call):
    """k steps, each timed between two synchronize() calls (the queue empty at its start); with
    call, empty_cache() after each, timed on its own after the synchronize() (the frees
    alone). A step right after a call, less one after none, is the refill it exposes, what
    `cachelint probe --refill-ms` takes. Returns lists per step (step_ms; launch_ms, the CPU's
    time to issue the step; allocs, segments the step allocated; with call, release_ms,
    freed, segments the call freed, and freed_bytes) and the next i."""
    r = {"step_ms": [], "launch_ms": [], "allocs": [], "release_ms": [], "freed": [], "freed_bytes": []}
    step(i)
    if call:
        torch.cuda.empty_cache()
    i += 1
    for _ in range(k):
        torch.cuda.synchronize()
        a0, _, _ = counters()
        t0 = time.perf_counter()
        step(i)
        tl = time.perf_counter()
        torch.cuda.synchronize()
        t1 = time.perf_counter()
        a1, f1, r1 = counters()
        r["step_ms"].append((t1 - t0) * 1e3)
        r["launch_ms"].append((tl - t0) * 1e3)
        r["allocs"].append(a1 - a0)
        if call:
            t2 = time.perf_counter()
            torch.cuda.empty_cache()
            t3 = time.perf_counter()
            _, f2, r2 = counters()
            r["release_ms"].append((t3 - t2) * 1e3)
            r["freed"].append(f2 - f1)
            r["freed_bytes"].append(r1 - r2)
        i += 1
    return r, i


def refill(step, i, k, rounds):
    """What a step pays for the segments a call released: rounds of k synchronised steps after
    a call and k after none, alternating. Returns (median difference in ms, the per-round
    differences, the median launch time of a step after none, next i)."""
    diffs, launch = [], []
    for _ in range(rounds):
        w, i = synced_steps(step, i, k, True)
        n, i = synced_steps(step, i, k, False)
        diffs.append(statistics.median(w["step_ms"]) - statistics.median(n["step_ms"]))
        launch += n["launch_ms"]
    return statistics.median(diffs), diffs, statistics.median(launch), i


def alternate(step, i, k, after, n):
    """n phases with after() after every step between n + 1 plain ones: (plain phases' ms a
    step, the others', each other phase less the mean of the plain ones either side, next i)."""
    plain = [phase(step, i, k, None)]
    i += k + 1
    other = []
    for _ in range(n):
        other.append(phase(step, i, k, after))
        i += k + 1
        plain.append(phase(step, i, k, None))
        i += k + 1
    diffs = [o - (plain[j] + plain[j + 1]) / 2 for j, o in enumerate(other)]
    return plain, other, diffs, i


def summarise(plain, other, diffs):
    """What alternate() measured, as OUT.json keeps a phase kind."""
    return {"per_step_ms": statistics.median(diffs), "min_ms": min(diffs), "max_ms": max(diffs),
            "step_ms": statistics.median(plain), "with_ms": statistics.median(other),
            "diffs_ms": diffs, "plain_ms": plain, "other_ms": other}


def write(out, doc):
    """Writes OUT.json and prints it without its phases."""
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)
    print(json.dumps({k: v for k, v in doc.items() if k != "phases"}))


def main(name, out, snapshot, k=20, pairs=12, sync_pairs=None):
    step = WORKLOADS[name]()
    i = 0
    phase(step, i, 2 * k, None)
    i += 2 * k + 1
    i = snapshot_at_call(step, i, snapshot)
    res = {}
    if sync_pairs is None:
        sync_pairs = max(3, pairs // 4)
    for kind, after, n in (("empty_cache", torch.cuda.empty_cache, pairs), ("synchronize", torch.cuda.synchronize, sync_pairs)):
        if n == 0:
            continue
        plain, other, diffs, i = alternate(step, i, k, after, n)
        res[kind] = summarise(plain, other, diffs)
    doc = {"workload": name, "torch": torch.__version__, "device": torch.cuda.get_device_name(), "k": k,
           "pairs": pairs, "per_call_ms": res["empty_cache"]["per_step_ms"],
           "sync_ms": res["synchronize"]["per_step_ms"] if "synchronize" in res else None,
           "step_ms": res["empty_cache"]["step_ms"], "phases": res}
    write(out, doc)


if __name__ == "__main__":
    a = sys.argv[1:]
    main(a[0], a[1], a[2], *(int(x) for x in a[3:]))
