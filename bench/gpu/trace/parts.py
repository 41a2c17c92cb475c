"""Where one torch.cuda.empty_cache() per step goes, for one workload of workloads.py, in one
process (no shim): the figures the probe's model adds up, measured in the loop itself, next to
the total they should add up to.

Rounds of five phases of K steps each, so drift reaches all alike:

- plain: K steps, synchronised at the phase's ends only (as ab_bench.py's phases);
- call: K steps, empty_cache() after each; minus the mean of the plain phases either side, the
  cost per call (what ab_bench.py and `cachelint trace` measure);
- sync: K steps, torch.cuda.synchronize() after each (the probe's --sync-ms, as ab_bench.py);
- parts with the call: each step timed between two synchronize() calls, then empty_cache()
  timed on its own after a synchronize(): the release in situ (the frees, the queue already
  drained), the segments it freed (memory_stats' num_device_free) and, over the next step,
  the segments re-allocated (num_device_alloc) and the step's time, which holds the refill;
- parts without it: the same steps timed between synchronize() calls, no call.

So per call: total = call - plain, free = the timed empty_cache(), refill = a synchronised
step after a call less one after none, sync = sync - plain; the rest (total - sync - free -
refill) is what the parts do not explain. The probe then runs, from this process while it
waits (seconds from the phases, the drift's time scale), on a snapshot taken where the call
runs, with --sync-ms from the sync phases, so its free and refill figures sit beside the
in-situ ones.

Usage: python3 parts.py NAME OUT.json SNAPSHOT.json PROBE [K] [ROUNDS]
"""

import json
import statistics
import subprocess
import sys
import time

import torch

from ab_bench import phase, snapshot_at_call, synced_steps
from workloads import WORKLOADS


def med(xs):
    return statistics.median(xs) if xs else None


def main(name, out, snapshot, probe, k=10, rounds=6):
    step = WORKLOADS[name]()
    i = 0
    phase(step, i, 2 * k, None)
    i += 2 * k + 1
    plain, call, sync = [phase(step, i, k, None)], [], []
    i += k + 1
    with_steps, rel, nfree, nalloc_after, bfree, no_steps, nalloc_plain, launch = [], [], [], [], [], [], [], []
    for _ in range(rounds):
        call.append(phase(step, i, k, torch.cuda.empty_cache))
        i += k + 1
        plain.append(phase(step, i, k, None))
        i += k + 1
        sync.append(phase(step, i, k, torch.cuda.synchronize))
        i += k + 1
        plain.append(phase(step, i, k, None))
        i += k + 1
        w, i = synced_steps(step, i, k, True)
        with_steps += w["step_ms"][1:]
        rel += w["release_ms"]
        nfree += w["freed"]
        nalloc_after += w["allocs"][1:]
        bfree += w["freed_bytes"]
        n, i = synced_steps(step, i, k, False)
        no_steps += n["step_ms"]
        nalloc_plain += n["allocs"]
        launch += n["launch_ms"]
        plain.append(phase(step, i, k, None))
        i += k + 1
    # plain[0], then per round: call, plain, sync, plain, (parts), plain
    calls = [c - (plain[3 * r] + plain[3 * r + 1]) / 2 for r, c in enumerate(call)]
    syncs = [s - (plain[3 * r + 1] + plain[3 * r + 2]) / 2 for r, s in enumerate(sync)]
    i = snapshot_at_call(step, i, snapshot)
    t = time.time()
    pr = subprocess.run([probe, "--no-progress", "--torch-stats", snapshot, "--sync-ms", "%.3f" % max(med(syncs), 0),
                         "--json", out + ".probe.json"], capture_output=True, text=True, timeout=120)
    probe_s = time.time() - t
    est = {}
    try:
        est = json.load(open(out + ".probe.json"))["estimate"]
    except Exception as e:  # noqa: BLE001 - a failed probe is reported, not fatal
        est = {"error": str(e), "stderr": pr.stderr[-2000:]}
    # The phases once more after the probe, for the drift over its seconds.
    after = [phase(step, i, k, None)]
    i += k + 1
    after_call = phase(step, i, k, torch.cuda.empty_cache)
    i += k + 1
    after.append(phase(step, i, k, None))
    doc = {
        "workload": name, "device": torch.cuda.get_device_name(), "torch": torch.__version__, "k": k, "rounds": rounds,
        "step_ms": med(plain), "total_ms": med(calls), "totals_ms": calls, "sync_ms": med(syncs), "syncs_ms": syncs,
        "release_ms": med(rel), "release_p10_p90": [sorted(rel)[len(rel) // 10], sorted(rel)[len(rel) * 9 // 10]],
        "freed_segments": med(nfree), "freed_segments_range": [min(nfree), max(nfree)], "freed_gib": med(bfree) / 2**30,
        "allocs_after_call": med(nalloc_after), "allocs_plain": med(nalloc_plain),
        "synced_step_after_call_ms": med(with_steps), "synced_step_plain_ms": med(no_steps),
        "refill_ms": med(with_steps) - med(no_steps), "launch_ms": med(launch),
        "probe": {kk: est.get(kk) for kk in ("per_call_us", "low_us", "high_us", "sync_us", "free_us", "free_warm_us",
                                              "refill_us", "segments", "bytes")} if "error" not in est else est,
        "probe_seconds": probe_s, "after_probe_total_ms": after_call - (after[0] + after[1]) / 2,
    }
    doc["rest_ms"] = doc["total_ms"] - max(doc["sync_ms"], 0) - doc["release_ms"] - doc["refill_ms"]
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)
    print(json.dumps(doc))


if __name__ == "__main__":
    a = sys.argv[1:]
    main(a[0], a[1], a[2], a[3], *(int(x) for x in a[4:]))
