#!/bin/bash
# One device call: for each workload of workloads.py, `cachelint trace` and the independent
# benchmark taking turns in one process (inproc.py: the figures compared come from the same
# seconds), then the probe's estimate from that process's snapshot, sync cost and refill
# (--refill-ms; the summary also shows the estimate with the probe's own replayed refill in
# its place); first, for the loops without an optimizer, what a global forward hook adds to a
# call (hooks.py; HOOKS= for none). A summary table last (docs/probe.md, "cachelint trace").
# Expects .devbin/cachelint and .devbin/probe (linux/amd64, see docs/probe.md).
set -u
OUT=${OUT:?set OUT}
W=${WORKLOADS:-"diffusion vit mlp seg cnn lm"}
BLOCKS=${BLOCKS:-12}
WINDOW=${WINDOW:-10}
HOOKS=${HOOKS-"diffusion"}
PROBE=$PWD/.devbin/probe
. "$(dirname "$0")/common.sh"
start_run inproc-run.log
for w in $HOOKS; do
  echo "== $w: global forward hooks and the call's cost (no shim)"
  timeout 120 python3 hooks.py "$w" | tee "$OUT/hooks-$w.json"
done
summary() {
python3 - "$D" $W <<'PY' > "$OUT/inproc-summary.txt"
import json, os, statistics, sys
d, names = sys.argv[1], sys.argv[2:]
def load(p):
    try:
        return json.load(open(os.path.join(d, p)))
    except Exception:
        return None
print("| workload | step (ms) | benchmark, same process (ms/step, min to max, pairs) | trace (ms/step, min to max, pairs) | trace error | probe with --refill-ms (ms, range) | error | probe, own refill (ms) | error |")
print("|---|---|---|---|---|---|---|---|---|")
for w in names:
    b, t = load(f"bench-{w}.json"), load(f"trace-{w}.json")
    if b is None:
        print(f"| {w} | - | failed | | | | |"); continue
    e = b["phases"]["empty_cache"]
    bc = e["per_step_ms"]
    row = [w, "%.1f" % b["step_ms"], "%.2f (%.2f to %.2f, %d)" % (bc, e["min_ms"], e["max_ms"], len(e["diffs_ms"]))]
    ms = [s for s in (t or {}).get("sites", []) if s.get("measured")]
    if ms:
        s = ms[0]
        row += ["%.2f (%.2f to %.2f, %d; %s)" % (s["per_step_us"] / 1e3, s["low_us"] / 1e3, s["high_us"] / 1e3, s["pairs"], t["trace"]["step_source"]),
                "%+.1f%%" % (100 * (s["per_step_us"] / 1e3 - bc) / bc)]
    else:
        row += ["not measured", ""]
    p = load(f"probe-refill-{w}.json")
    if p:
        pe = p["estimate"]
        # The same run's estimate without --refill-ms: the replay's cuMemAlloc counted exposed.
        own = (pe["per_call_us"] - pe["exposed_refill_us"] + pe["refill_us"]) / 1e3
        row += ["%.2f (%.2f to %.2f)" % (pe["per_call_us"] / 1e3, pe["low_us"] / 1e3, pe["high_us"] / 1e3), "%+.1f%%" % (100 * (pe["per_call_us"] / 1e3 - bc) / bc),
                "%.2f" % own, "%+.1f%%" % (100 * (own - bc) / bc)]
    else:
        row += ["failed", "", "", ""]
    print("| " + " | ".join(row) + " |")
PY
  tar czf "$OUT/inproc-results.tgz" -C "$D" .
}
for w in $W; do
  echo "== $w: cachelint trace and the benchmark, taking turns"
  timeout 300 "$CL" trace --no-progress --window "$WINDOW" --json "$D/trace-$w.json" -- python3 inproc.py "$w" "$D/bench-$w.json" "$D/snap-$w.json" "$BLOCKS" "$WINDOW"; echo "trace exit $?"
  if [ -f "$D/bench-$w.json" ]; then
    read -r sync step refill < <(python3 -c "import json; d=json.load(open('$D/bench-$w.json')); print(max(d['sync_ms'],0), d['step_ms'], max(d['refill_ms'],0))")
    echo "== $w: probe --sync-ms $sync --step-ms $step --refill-ms $refill"
    timeout 120 "$PROBE" --no-progress --torch-stats "$D/snap-$w.json" --sync-ms "$sync" --step-ms "$step" --refill-ms "$refill" --json "$D/probe-refill-$w.json"; echo "probe exit $?"
    rm -f "$D/snap-$w.json"
  fi
  summary
done
cat "$OUT/inproc-summary.txt"
