#!/bin/bash
# One device call: trace vs benchmark over several processes of each. The per-call cost moves
# between processes of the same workload by more than +-10% (docs/probe.md, run 4), so one
# benchmark process against one trace process cannot show +-10%. Here, per workload, ROUNDS
# rounds of (benchmark process, trace process) and a last benchmark process, alternated in
# time; the figures compared are the medians over all processes' pairs (pooled) and the
# median of the processes' own figures. Results are summarised after each workload, so a
# run cut short keeps what it finished.
# Expects .devbin/cachelint (linux/amd64, see docs/probe.md).
set -u
OUT=${OUT:?set OUT}
W=${WORKLOADS:-"vit diffusion mlp seg cnn lm"}
ROUNDS=${ROUNDS:-3}
PAIRS=${PAIRS:-4}      # benchmark pairs per process
TPAIRS=${TPAIRS:-10}   # trace window pairs per process
WINDOW=${WINDOW:-10}
. "$(dirname "$0")/common.sh"
start_run pooled-run.log
summary() {
python3 - "$D" $W <<'PY' > "$OUT/pooled-summary.txt"
import glob, json, os, statistics, sys
d, names = sys.argv[1], sys.argv[2:]
def loads(pattern):
    out = []
    for p in sorted(glob.glob(os.path.join(d, pattern))):
        try:
            out.append(json.load(open(p)))
        except Exception:
            pass
    return out
print("| workload | benchmark, pooled (ms/step; pairs) | benchmark per process | trace, pooled (ms/step; pairs) | trace per process | error, pooled | error, median of processes |")
print("|---|---|---|---|---|---|---|")
for w in names:
    bs, ts = loads(f"bench-{w}-*.json"), loads(f"trace-{w}-*.json")
    if not bs:
        continue
    bd = [x for b in bs for x in b["phases"]["empty_cache"]["diffs_ms"]]
    bp = [b["per_call_ms"] for b in bs]
    tsites = [s for t in ts for s in t.get("sites", []) if s.get("measured")]
    td = [x / 1e3 for s in tsites for x in s.get("pairs_us", [])]
    tp = [s["per_step_us"] / 1e3 for s in tsites]
    row = [w, "%.2f (%d)" % (statistics.median(bd), len(bd)), " ".join("%.2f" % x for x in bp)]
    if tp:
        tpooled = statistics.median(td) if td else float("nan")
        row += ["%.2f (%d)" % (tpooled, len(td)), " ".join("%.2f" % x for x in tp),
                "%+.0f%%" % (100 * (tpooled / statistics.median(bd) - 1)) if td else "-",
                "%+.0f%%" % (100 * (statistics.median(tp) / statistics.median(bp) - 1))]
    else:
        row += ["not measured", "", "", ""]
    print("| " + " | ".join(row) + " |")
PY
cat "$OUT/pooled-summary.txt"
tar czf "$OUT/pooled-results.tgz" -C "$D" .
}
steps=$((2 * WINDOW * TPAIRS + 4 * WINDOW))
for w in $W; do
  for r in $(seq 1 "$ROUNDS"); do
    echo "== $w: benchmark process $r"
    timeout 120 python3 ab_bench.py "$w" "$D/bench-$w-$r.json" "$D/snap-$w-$r.json" 20 "$PAIRS" 0 || echo "bench exit $?"
    echo "== $w: trace process $r"
    timeout 120 "$CL" trace --no-progress --window "$WINDOW" --json "$D/trace-$w-$r.json" -- python3 train_one.py "$w" "$steps" >/dev/null; echo "trace exit $?"
  done
  echo "== $w: benchmark process $((ROUNDS + 1))"
  timeout 120 python3 ab_bench.py "$w" "$D/bench-$w-$((ROUNDS + 1)).json" "$D/snap-$w-x.json" 20 "$PAIRS" 0 || echo "bench exit $?"
  rm -f "$D"/snap-*.json
  summary
done
