#!/bin/bash
# Is the driver's free cost a property of the CPU a process runs on? The probe's replay of
# one workload pinned to each CPU in turn, twice, then unpinned. Usage:
#   bash bench/gpu/core_sweep.sh SNAPSHOT.json   (probe binary at .devbin/probe)
set -u
S=${1:?snapshot}
B=.devbin/probe
show() { python3 -c "import json;m=json.load(open('/tmp/sweep.json'))['measurements'];print('$1', 'free pass', round(m['replay']['free_us']['median']), 'us; idle sync', round(m['idle_sync_us']['median'], 2), 'us; alloc 2 MiB', round(m['alloc_free'][0]['alloc_us']['median']), 'us')"; }
for rep in 1 2; do for c in $(seq 0 $(($(nproc) - 1))); do
  taskset -c "$c" $B --no-progress --processes 1 --torch-stats "$S" --json /tmp/sweep.json >/dev/null && show "rep $rep cpu $c"
done; done
for k in 1 2 3 4 5 6; do $B --no-progress --processes 1 --torch-stats "$S" --json /tmp/sweep.json >/dev/null && show "unpinned $k"; done
