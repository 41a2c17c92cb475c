#!/bin/bash
# One device call: does the window length change what `cachelint trace` measures? For one
# workload (default the ViT, whose trace figure ran 14% under the benchmark with windows of
# 10), the independent benchmark's first half, then `cachelint trace` with each window length
# of WINDOWS over the same number of window pairs, then the benchmark's second half; a table
# of trace vs benchmark per window length last (docs/probe.md, "cachelint trace").
# Expects .devbin/cachelint (linux/amd64, see docs/probe.md).
set -u
OUT=${OUT:?set OUT}
W=${WORKLOAD:-vit}
WINDOWS=${WINDOWS:-"10 20 40"}
PAIRS=${PAIRS:-8}        # per half of the benchmark
TPAIRS=${TPAIRS:-24}     # window pairs per trace
. "$(dirname "$0")/common.sh"
start_run windows-run.log
echo "== $W: benchmark"
timeout 200 python3 ab_bench.py "$W" "$D/bench-$W.json" "$D/snap-$W.json" 20 "$PAIRS" 0 || echo "bench exit $?"
for n in $WINDOWS; do
  steps=$((2 * n * TPAIRS + 4 * n))
  echo "== $W: cachelint trace --window $n ($steps steps)"
  timeout 250 "$CL" trace --no-progress --window "$n" --json "$D/trace-$W-w$n.json" -- python3 train_one.py "$W" "$steps"; echo "trace exit $?"
done
echo "== $W: benchmark, second half"
timeout 200 python3 ab_bench.py "$W" "$D/bench2-$W.json" "$D/snap2-$W.json" 20 "$PAIRS" 0 || echo "bench exit $?"
python3 - "$D" "$W" $WINDOWS <<'PY' | tee "$OUT/windows-summary.txt"
import json, os, statistics, sys
d, w, ns = sys.argv[1], sys.argv[2], sys.argv[3:]
def load(p):
    try:
        return json.load(open(os.path.join(d, p)))
    except Exception:
        return None
b, b2 = load(f"bench-{w}.json"), load(f"bench2-{w}.json")
diffs = [x for doc in (b, b2) if doc for x in doc["phases"]["empty_cache"]["diffs_ms"]]
if not diffs:
    print("benchmark failed"); sys.exit(0)
bc = statistics.median(diffs)
halves = " / ".join("%.2f" % doc["per_call_ms"] if doc else "-" for doc in (b, b2))
print(f"benchmark {w}: {bc:.2f} ms/step ({min(diffs):.2f} to {max(diffs):.2f}; halves {halves})")
print("| window | trace (ms/step, spread, pairs) | error |")
print("|---|---|---|")
for n in ns:
    t = load(f"trace-{w}-w{n}.json")
    ms = [s for s in (t or {}).get("sites", []) if s.get("measured")]
    if not ms:
        print(f"| {n} | not measured | |"); continue
    s = ms[0]
    v = s["per_step_us"] / 1e3
    print("| %s | %.2f (%.2f to %.2f, %d pairs) | %+.0f%% |" % (n, v, s["low_us"] / 1e3, s["high_us"] / 1e3, s["pairs"], 100 * (v - bc) / bc))
PY
tar czf "$OUT/windows-results.tgz" -C "$D" .
