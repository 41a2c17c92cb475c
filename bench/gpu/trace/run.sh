#!/bin/bash
# One device call: for each workload of workloads.py, the independent benchmark (no shim) in
# two halves, one before and one after `cachelint trace` on the same loop (the per-call cost
# drifts between fast and slow phases of the driver within seconds: the halves bracket the
# trace in time, and their difference shows the benchmark's own repeatability), and the
# probe's estimate from the first half's snapshot and sync cost; a summary table last
# (docs/probe.md, "cachelint trace").
# Expects .devbin/cachelint and .devbin/probe (linux/amd64, see docs/probe.md).
set -u
OUT=${OUT:?set OUT}
W=${WORKLOADS:-"mlp diffusion vit lm cnn seg"}
STEPS=${STEPS:-720}
PAIRS=${PAIRS:-8}  # per half of the benchmark
WINDOW=${WINDOW:-10}
PROBE=$PWD/.devbin/probe
. "$(dirname "$0")/common.sh"
start_run trace-run.log
# What the shim's per-call reads cost (runtime-check/shim: _reserved).
python3 - <<'PY'
import time, torch
xs = [torch.empty(n << 20, dtype=torch.uint8, device="cuda") for n in (1, 3, 30, 300)]
for name, f in (("memory_reserved()", torch.cuda.memory_reserved),
                ("memory_stats_as_nested_dict()", torch.cuda.memory.memory_stats_as_nested_dict),
                ("mem_get_info()", torch.cuda.mem_get_info)):
    for _ in range(100):
        f()
    t = time.perf_counter()
    for _ in range(2000):
        f()
    print("%-32s %.1f us a read" % (name, (time.perf_counter() - t) / 2000 * 1e6))
PY
summary() {
python3 - "$D" $W <<'PY' > "$OUT/trace-summary.txt"
import json, os, statistics, sys
d, names = sys.argv[1], sys.argv[2:]
def load(p):
    try:
        return json.load(open(os.path.join(d, p)))
    except Exception:
        return None
print("| workload | step (ms) | benchmark (ms/step, min to max; halves before / after the trace) | trace (ms/step, spread) | trace error | probe (ms, range) | probe error | probe, refill hidden (old model) | error |")
print("|---|---|---|---|---|---|---|---|---|")
for w in names:
    b, b2, t, p = load(f"bench-{w}.json"), load(f"bench2-{w}.json"), load(f"trace-{w}.json"), load(f"probe-{w}.json")
    if b is None:
        print(f"| {w} | - | failed | | | | |"); continue
    diffs = b["phases"]["empty_cache"]["diffs_ms"] + (b2["phases"]["empty_cache"]["diffs_ms"] if b2 else [])
    bc = statistics.median(diffs)
    halves = "%.2f / %.2f" % (b["per_call_ms"], b2["per_call_ms"]) if b2 else "%.2f / -" % b["per_call_ms"]
    row = [w, "%.1f" % b["step_ms"], "%.2f (%.2f to %.2f; halves %s)" % (bc, min(diffs), max(diffs), halves)]
    ms = [s for s in (t or {}).get("sites", []) if s.get("measured")]
    if ms:
        s = ms[0]
        u = "" if s.get("gpu_util_percent") is None or s.get("gpu_util_percent_without") is None else "; GPU %.0f%% vs %.0f%%" % (s["gpu_util_percent"], s["gpu_util_percent_without"])
        row += ["%.2f (%.2f to %.2f, %d pairs; %s%s)" % (s["per_step_us"] / 1e3, s["low_us"] / 1e3, s["high_us"] / 1e3, s["pairs"], t["trace"]["step_source"], u),
                "%+.0f%%" % (100 * (s["per_step_us"] / 1e3 - bc) / bc)]
    else:
        row += ["not measured", ""]
    if p:
        e = p["estimate"]
        row += ["%.2f (%.2f to %.2f)" % (e["per_call_us"] / 1e3, e["low_us"] / 1e3, e["high_us"] / 1e3), "%+.0f%%" % (100 * (e["per_call_us"] / 1e3 - bc) / bc)]
        x = (e["per_call_us"] - e["exposed_refill_us"]) / 1e3
        row += ["%.2f" % x, "%+.0f%%" % (100 * (x - bc) / bc)]
    else:
        row += ["failed", "", "", ""]
    print("| " + " | ".join(row) + " |")
PY
  tar czf "$OUT/trace-results.tgz" -C "$D" .
}
for w in $W; do
  echo "== $w: benchmark"
  timeout 200 python3 ab_bench.py "$w" "$D/bench-$w.json" "$D/snap-$w.json" 20 "$PAIRS" || echo "bench exit $?"
  echo "== $w: cachelint trace"
  timeout 200 "$CL" trace --no-progress --window "$WINDOW" --json "$D/trace-$w.json" -- python3 train_one.py "$w" "$STEPS"; echo "trace exit $?"
  echo "== $w: benchmark, second half"
  timeout 200 python3 ab_bench.py "$w" "$D/bench2-$w.json" "$D/snap2-$w.json" 20 "$PAIRS" 0 || echo "bench exit $?"
  if [ -f "$D/bench-$w.json" ]; then
    read -r sync step < <(python3 -c "import json; d=json.load(open('$D/bench-$w.json')); print(max(d['sync_ms'],0), d['step_ms'])")
    echo "== $w: probe --sync-ms $sync --step-ms $step"
    "$PROBE" --no-progress --torch-stats "$D/snap-$w.json" --sync-ms "$sync" --step-ms "$step" --json "$D/probe-$w.json"; echo "probe exit $?"
  fi
  summary
done
cat "$OUT/trace-summary.txt"
