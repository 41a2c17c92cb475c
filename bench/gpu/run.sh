#!/bin/bash
# One device call: the probe with no stats, the PyTorch benchmark (which dumps
# memory_stats() for each workload just before an empty_cache() call), then the probe
# three times with each dump. Everything lands in $OUT (at most 8 files come back).
# Expects the CGO_ENABLED=0 probe binary at .devbin/probe (see docs/probe.md).
set -u
OUT=${OUT:?set OUT}
B=.devbin/probe
exec > >(tee "$OUT/run.log") 2>&1
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv
echo "== no GPU number 7 (expect exit 2)"; $B --device 7; echo "exit $?"
echo "== probe, default workload"; time $B --no-progress; echo "exit $?"
echo "== PyTorch benchmark"; python3 bench/gpu/empty_cache_bench.py --out "$OUT"; echo "exit $?"
for w in resnet50 transformer; do
  step=$(python3 -c "import json;r=[x for x in json.load(open('$OUT/bench.json'))['results'] if x['workload']=='$w'][0];print(round(r['step_ms_never'],2))" 2>/dev/null || echo 0)
  for k in 1 2 3; do
    echo "== probe $k, $w stats taken before the call (step $step ms)"
    time $B --no-progress --torch-stats "$OUT/$w-stats.json" --step-ms "$step" --json "$OUT/profile-$w.json"; echo "exit $?"
  done
done
