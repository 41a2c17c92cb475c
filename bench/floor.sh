#!/usr/bin/env bash
# The floor under issue 14's cold goal: how long parsing only the files that name
# empty_cache takes (pyparse's BenchmarkParseFloor), against `rg -l empty_cache` over the
# whole tree. A cold run cannot leave those files unparsed (its findings are in them), so no
# analysis that parses what it classifies with tree-sitter runs a cold check faster than
# this, whatever it does with the other files.
#
# Usage: bench/floor.sh [--runs N] [--test-bin FILE] TREE...
#   --test-bin FILE  pyparse's test binary (go test -c ./pyparse), for a machine without Go;
#                    default: built from this checkout
# Each tree: one untimed rg run (the page cache warmed), then N rounds (default 5), each
# timing rg once, then the benchmark's "tree-sitter" (the parser alone) and "pyparse" (a
# run's parse: the tree copied into Go, the model built) once each, on GOMAXPROCS
# goroutines; the medians, and each parse over rg's median.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
runs=5 testbin=""
trees=()
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift ;;
    --test-bin) testbin="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"; shift ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
    *) trees+=("${1%/}") ;;
  esac
  shift
done
[ ${#trees[@]} -gt 0 ] || { echo "usage: bench/floor.sh [--runs N] [--test-bin FILE] TREE..." >&2; exit 2; }
command -v rg >/dev/null || { echo "floor.sh needs rg (ripgrep)" >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
if [ -n "$testbin" ]; then
  cp "$testbin" "$work/pyparse.test"
  commit="(given test binary)"
else
  (cd "$here" && go test -c -o "$work/pyparse.test" ./pyparse)
  commit="$(git -C "$here" rev-parse --short HEAD)"
fi

median() { sort -n | awk '{a[NR]=$1} END {if (NR % 2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
ms() { awk '{printf "%.0f", $1/1e6}'; }

echo "| tree | files naming empty_cache | rg -l empty_cache | tree-sitter alone (x rg) | pyparse (x rg) |"
echo "|---|---|---|---|---|"
for tree in "${trees[@]}"; do
  tree="$(cd "$tree" && pwd)"
  : >"$work/rg" && : >"$work/ts" && : >"$work/pp"
  rg -l empty_cache "$tree" >/dev/null || true # untimed: the page cache warmed
  for _ in $(seq "$runs"); do
    s=$(date +%s%N); rg -l empty_cache "$tree" >/dev/null || true; e=$(date +%s%N)
    echo $((e - s)) >>"$work/rg"
    for c in ts:tree-sitter pp:pyparse; do
      out=$(cd "$work" && CACHELINT_BENCH_FLOOR="$tree" ./pyparse.test -test.run '^$' \
        -test.bench "ParseFloor/${c#*:}\$" -test.benchtime 1x -test.v 2>&1) || { echo "$out" >&2; exit 1; }
      echo "$out" | awk -v c="${c#*:}" '$1 ~ "^BenchmarkParseFloor/"c"-" {print $3}' >>"$work/${c%%:*}"
      files=$(echo "$out" | sed -n 's/.*: \([0-9]*\) files naming empty_cache, \([0-9.]*\) MB/\1 (\2 MB)/p' | head -1)
    done
  done
  rg_ns=$(median <"$work/rg") ts_ns=$(median <"$work/ts") pp_ns=$(median <"$work/pp")
  printf '| %s | %s | %s ms | %s ms (%.1fx) | %s ms (%.1fx) |\n' "$(basename "$tree")" \
    "$files" "$(echo "$rg_ns" | ms)" "$(echo "$ts_ns" | ms)" "$(echo "$ts_ns $rg_ns" | awk '{print $1/$2}')" \
    "$(echo "$pp_ns" | ms)" "$(echo "$pp_ns $rg_ns" | awk '{print $1/$2}')"
done
echo
echo "$runs rounds a tree, medians; $(nproc) CPUs; commit $commit"
