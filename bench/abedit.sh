#!/usr/bin/env bash
# Compares builds on the run pre-commit makes after a commit: one file of a tree edited (a
# comment line appended) before each round, then `cachelint check FILE` timed with each build
# in turn, each with a cache folder of its own (warmed by a run over the tree first). Prints
# each build's wall times in ms, their median, and its last peak RSS. The file is put back
# afterwards.
# Usage: bench/abedit.sh [--project-root] TREE FILE RUNS BIN...
#   --project-root  pass --project-root . (a tree with no project marker)
#   FILE is relative to TREE.
set -euo pipefail
root=()
if [ "${1:-}" = --project-root ]; then root=(--project-root .); shift; fi
tree="${1:?usage: abedit.sh [--project-root] TREE FILE RUNS BIN...}"; file="${2:?}"; runs="${3:?}"; shift 3
[ $# -gt 0 ] || { echo "no build given" >&2; exit 2; }
work=$(mktemp -d)
cd "$tree"
cp -p "$file" "$work/orig"
trap 'cp -p "$work/orig" "$tree/$file"; rm -rf "$work"' EXIT
n=0
for b in "$@"; do
  n=$((n + 1))
  "$b" check --exit-zero -q --no-config "${root[@]}" --cache-dir "$work/cache$n" . >/dev/null 2>&1 || true
done
for r in $(seq 1 "$runs"); do
  printf '\n# abedit %d\n' "$r" >>"$file"
  n=0
  for b in "$@"; do
    n=$((n + 1))
    /usr/bin/time -f "$n %e %M" "$b" check --exit-zero -q --no-config "${root[@]}" --cache-dir "$work/cache$n" "$file" 2>&1 >/dev/null | tail -1
  done
done >"$work/times"
n=0
for b in "$@"; do
  n=$((n + 1))
  runs_ms=$(awk -v n="$n" '$1 == n { printf " %d", $2 * 1000 }' "$work/times")
  mapfile -t sorted < <(printf '%s\n' $runs_ms | sort -n)
  k=${#sorted[@]}
  if [ $((k % 2)) = 1 ]; then med=${sorted[$((k / 2))]}; else med=$(( (sorted[k / 2 - 1] + sorted[k / 2]) / 2 )); fi
  rss=$(awk -v n="$n" '$1 == n { m = $3 } END { printf "%d", m / 1024 }' "$work/times")
  echo "$b: median $med ms, runs$runs_ms, peak RSS $rss MB"
done
