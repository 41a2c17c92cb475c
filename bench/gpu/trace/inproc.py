"""`cachelint trace` and the independent benchmark on the same loop, in one process, taking
turns: the figures compared come from the same seconds of the same process.

Why: the per-call cost drifts with the host (docs/probe.md: half-second medians of one
process moved between 7.2 and 12.7 ms; plain steps of four processes of one workload took
6.8 to 11.2 ms), so a benchmark process and a trace process run minutes apart disagree by
more than the +-10% the trace is held to, whichever is right.

Run it under the trace: `cachelint trace --window W --json T.json -- python3 inproc.py NAME
OUT.json SNAPSHOT.json [BLOCKS] [W]`. After a warm-up under the trace (for a loop without an
optimizer, the trace decides there to count steps at forwards), each of BLOCKS blocks is:

- the trace's turn: 5 windows of W steps (calls, skipped, calls, skipped, calls), each with
  its settling step, the helper free_gpu() called after every step as in train_one.py: each
  window without the calls has windows with them on both sides, as the trace pairs them;
- then `_cachelint_trace.pause()` (the open window is dropped, the shim's forward hooks are
  removed, its wrapper passes calls straight through) and the benchmark's turn: ab_bench.py's
  phases of W steps, plain, with the call, plain, with, plain, each with-phase against the
  mean of the plain phases either side; then `resume()`. (A first version gave the trace 4
  windows a turn, so its second pair had one neighbour, the window before it, while every
  benchmark pair had two.)

The two turns take about the same time and alternate, so drift reaches both alike. At the end,
paused, what `cachelint probe` takes from the user's step (docs/probe.md): the snapshot, the
sync phases (--sync-ms, as ab_bench.py takes them) and synchronised steps after a call and
after none (--refill-ms, ab_bench.refill).
OUT.json has ab_bench.py's layout.
"""

import statistics
import sys

import torch

from ab_bench import alternate, refill, snapshot_at_call, summarise, write
from memutil import free_gpu
from workloads import WORKLOADS


def traced(step, i, n):
    """n steps as train_one.py runs them; one call site for the trace, warm-up and turns alike."""
    for _ in range(n):
        step(i)
        free_gpu()
        i += 1
    return i


def main(name, out, snapshot, blocks=12, w=10):
    trace = sys.modules.get("_cachelint_trace")
    if trace is None:
        sys.exit("inproc.py: run it under `cachelint trace` (no _cachelint_trace module)")
    step = WORKLOADS[name]()
    i = 0
    plain, other, diffs = [], [], []
    for b in range(blocks):
        # The first turn starts with the warm-up (one call site for all: a call's site is its
        # frames, and a site's calls per step are counted over every window).
        i = traced(step, i, 5 * (w + 1) + 1 + (0 if b else 4 * w + 4))
        trace.pause()
        p, o, d, i = alternate(step, i, w, torch.cuda.empty_cache, 2)
        plain, other, diffs = plain + p, other + o, diffs + d
        trace.resume()
    trace.pause()
    i = snapshot_at_call(step, i, snapshot)
    _, _, sdiffs, i = alternate(step, i, w, torch.cuda.synchronize, 3)
    rf, rdiffs, launch, i = refill(step, i, w, 6)
    res = {"empty_cache": summarise(plain, other, diffs),
           "synchronize": {"per_step_ms": statistics.median(sdiffs), "diffs_ms": sdiffs},
           "refill": {"per_step_ms": rf, "diffs_ms": rdiffs, "launch_ms": launch}}
    doc = {"workload": name, "torch": torch.__version__, "device": torch.cuda.get_device_name(), "k": w,
           "pairs": len(diffs), "in_process": True, "per_call_ms": res["empty_cache"]["per_step_ms"],
           "sync_ms": res["synchronize"]["per_step_ms"], "refill_ms": rf, "step_ms": res["empty_cache"]["step_ms"], "phases": res}
    write(out, doc)


if __name__ == "__main__":
    a = sys.argv[1:]
    main(a[0], a[1], a[2], *(int(x) for x in a[3:]))
