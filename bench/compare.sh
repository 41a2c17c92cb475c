#!/usr/bin/env bash
# Time cachelint against ripgrep (the floor: reading every byte) on a large corpus.
# Usage: bench/compare.sh [DIR]   (default: a generated 20 000-file synthetic corpus)
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:-}"
if [ -z "$dir" ]; then
  dir="${TMPDIR:-/tmp}/cachelint-corpus"
  [ -d "$dir" ] || python3 bench/gen_corpus.py "$dir" --files 20000
fi
go build -o /tmp/cachelint-bench ./cmd/cachelint
echo "corpus: $dir ($(find "$dir" -name '*.py' | wc -l) .py files, $(find "$dir" -name '*.py' -print0 | xargs -0 cat | wc -l) lines)"
if command -v hyperfine >/dev/null 2>&1; then
  args=()
  command -v rg >/dev/null 2>&1 && args+=("rg -l empty_cache $dir")
  hyperfine -w 1 -r 5 -i "${args[@]}" "/tmp/cachelint-bench check --exit-zero --no-config --format concise $dir"
else
  if command -v rg >/dev/null 2>&1; then
    /usr/bin/time -f "rg: %e s wall, %M KB peak" rg -l empty_cache "$dir" >/dev/null || true
  fi
  /usr/bin/time -f "cachelint: %e s wall, %M KB peak" /tmp/cachelint-bench check --exit-zero --no-config --format concise "$dir" >/dev/null
fi
/usr/bin/time -f "cachelint peak RSS: %M KB" /tmp/cachelint-bench check --exit-zero --no-config --format concise "$dir" >/dev/null
