#!/bin/bash
# One device call for the probe's validation (docs/probe.md). The driver's free cost
# differs from process to process, so both sides are measured in several processes and
# compared by their medians:
#   - the PyTorch benchmark in $RUNS fresh processes: per-call cost of empty_cache() every
#     step, what a synchronize() per step costs, and memory_stats()/memory_snapshot()
#     dumps just before a call (the first process's dumps are used); before and after each
#     call phase it also runs the probe's replay of its snapshot, so every measured call has
#     probe figures taken seconds from it (the driver's free cost drifts within seconds),
#     and it times PyTorch's own release inside each call phase;
#   - the probe $RUNS times per workload with that snapshot and the median sync cost
#     (each probe itself replays in 3 processes), and once with memory_stats() alone.
# Everything lands in $OUT (at most 8 files come back, so the dumps travel as one archive).
# Expects the CGO_ENABLED=0 probe binary at .devbin/probe (see docs/probe.md).
set -u
OUT=${OUT:?set OUT}
RUNS=${RUNS:-3}
B=.devbin/probe
D=$(mktemp -d)
exec > >(tee "$OUT/run.log") 2>&1
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv
echo "== no GPU number 7 (expect exit 2)"; $B --device 7; echo "exit $?"
echo "== probe, default workload"; time $B --no-progress; echo "exit $?"
for k in $(seq 1 "$RUNS"); do
  echo "== PyTorch benchmark, process $k"
  mkdir -p "$D/bench$k"
  python3 bench/gpu/empty_cache_bench.py --out "$D/bench$k" --repeats 3 --probe "$B"; echo "exit $?"
done
# median over processes of a result field
med() { python3 -c "
import json,statistics,glob
v=[[x for x in json.load(open(f))['results'] if x['workload']=='$1'][0]['$2'] for f in sorted(glob.glob('$D/bench*/bench.json'))]
print(round(statistics.median(v),3))" 2>/dev/null || echo 0; }
for w in resnet50 transformer; do
  step=$(med $w step_ms_never); sync=$(med $w sync_ms); call=$(med $w per_call_ms)
  echo "== $w: PyTorch per call $call ms, synchronize() $sync ms, step $step ms (medians over $RUNS processes)"
  for k in $(seq 1 "$RUNS"); do
    echo "== probe $k, $w: snapshot taken before the call, --sync-ms $sync"
    time $B --no-progress --torch-stats "$D/bench1/$w-snapshot.json" --sync-ms "$sync" --step-ms "$step" --json "$D/profile-$w-$k.json"; echo "exit $?"
  done
  echo "== probe, $w: memory_stats() alone, no --sync-ms"
  $B --no-progress --torch-stats "$D/bench1/$w-stats.json" --step-ms "$step" --json "$D/profile-$w-stats.json"; echo "exit $?"
done
python3 - "$D" <<'PY' | tee "$OUT/summary.txt"
import json, glob, statistics, sys
d = sys.argv[1]
for w in ("resnet50", "transformer"):
    runs = [[x for x in json.load(open(f))["results"] if x["workload"] == w][0] for f in sorted(glob.glob(d + "/bench*/bench.json"))]
    est = [json.load(open(f))["estimate"] for f in sorted(glob.glob(f"{d}/profile-{w}-[0-9]*.json"))]
    call = statistics.median(r["per_call_ms"] for r in runs)
    e = statistics.median(x["per_call_us"] for x in est) / 1000
    # The same estimate with the warm free pass in place of the cold one.
    ew = statistics.median(x["per_call_us"] - x["free_us"] + x["free_warm_us"] for x in est) / 1000
    inter = [x for r in runs for x in r.get("interleaved", [])]
    if inter:
        situ = [x["release_in_situ_ms"] for x in inter]
        for kind, err, field in (("cold (the estimate)", "error", "probe_free_cold_ms"), ("warm", "error_warm", "probe_free_warm_ms")):
            errs = sorted(x[err] for x in inter)
            free = [statistics.mean(x[field]) for x in inter]
            print(f"{w} interleaved, free {kind}: {len(inter)} call phases, error median {100 * statistics.median(errs):+.0f}%, "
                  f"range {100 * errs[0]:+.0f}% .. {100 * errs[-1]:+.0f}%, within 30%: {sum(abs(e) <= 0.3 for e in errs)}; "
                  f"probe free {statistics.median(free):.2f} ms vs PyTorch's release in the phase {statistics.median(situ):.2f} ms "
                  f"(ratio by phase: median {statistics.median(f / r for f, r in zip(free, situ)):.2f})")
    print(f"{w}: measured per call {call:.2f} ms (processes {[round(r['per_call_ms'], 2) for r in runs]}), "
          f"sync {[round(r['sync_ms'], 2) for r in runs]}, release in situ {[round(r['release_in_situ_ms'], 2) for r in runs]}, "
          f"refill exposed {[round(r['parts']['refill_ms'], 2) for r in runs]}; "
          f"probe {[round(x['per_call_us'] / 1000, 2) for x in est]} (free {[round(x['free_us'] / 1000, 2) for x in est]}), "
          f"median {e:.2f} ms: error {100 * (e - call) / call:+.0f}%; with the warm free pass {ew:.2f} ms: {100 * (ew - call) / call:+.0f}%")
PY
cp "$D/bench1/bench.json" "$OUT/bench.json"
tar -C "$D" -czf "$OUT/dumps.tar.gz" .
