#!/bin/bash
# One device call: parts.py for each workload of workloads.py (where one empty_cache() per
# step goes, with the probe's figures beside the in-situ ones), then a table.
# Expects .devbin/probe (linux/amd64, see docs/probe.md).
set -u
OUT=${OUT:?set OUT}
W=${WORKLOADS:-"diffusion vit mlp seg cnn lm"}
K=${K:-10}
ROUNDS=${ROUNDS:-6}
PROBE=$PWD/.devbin/probe
. "$(dirname "$0")/common.sh"
start_run parts-run.log
for w in $W; do
  echo "== $w"
  timeout 400 python3 parts.py "$w" "$OUT/parts-$w.json" "$D/snap-$w.json" "$PROBE" "$K" "$ROUNDS" >/dev/null; echo "exit $?"
done
python3 - "$OUT" $W <<'PY' | tee "$OUT/parts-summary.txt"
import json, os, sys
d, names = sys.argv[1], sys.argv[2:]
print("| workload | step | total | sync | release in situ | refill in situ | rest | freed segs (range) | GiB | allocs after call | probe: per call | sync | free | free warm | refill | segs |")
print("|---|" + "---|" * 15)
for w in names:
    try:
        r = json.load(open(os.path.join(d, f"parts-{w}.json")))
    except Exception as e:
        print(f"| {w} | failed: {e} |"); continue
    p = r["probe"]; f = lambda v: "-" if v is None else "%.2f" % v
    u = lambda k: f(p.get(k) / 1e3) if isinstance(p.get(k), (int, float)) else "-"
    print("| " + " | ".join([w, f(r["step_ms"]), f(r["total_ms"]), f(r["sync_ms"]), f(r["release_ms"]), f(r["refill_ms"]), f(r["rest_ms"]),
        "%s (%s)" % (r["freed_segments"], r["freed_segments_range"]), f(r["freed_gib"]), str(r["allocs_after_call"]),
        u("per_call_us"), u("sync_us"), u("free_us"), u("free_warm_us"), u("refill_us"), str(p.get("segments"))]) + " |")
PY
