#!/usr/bin/env bash
# Checks that a cached run shows what the analysis shows, on every materialised tree: a cached
# run first, then a change, then `check` and `calls` JSON with the cache against --no-cache.
# Usage: bench/realworld/cachecheck.sh CACHELINT TREES WORK MODE
#   TREES: the folder materialise.sh filled; WORK: a scratch folder (emptied); MODE:
#   edit  two edits of the first file naming empty_cache (a comment; a new helper named train)
#   star  `from .zz_unrelated import *` appended to every __init__.py (import questions)
# Prints one line per tree and change ("same" or "DIFF") and ends with bad=0 or bad=1.
set -uo pipefail
bin="${1:?usage: cachecheck.sh CACHELINT TREES WORK MODE}"
trees="${2:?}"; work="${3:?}"; mode="${4:?}"
rm -rf "$work"; mkdir -p "$work"; bad=0
same() { # same TREE LABEL: cached check/calls against --no-cache
  local a c a0 c0
  a=$("$bin" check --cache-dir "$work/c_$1" --no-config --exit-zero --project-root . --output-format json . 2>/dev/null | md5sum)
  c=$("$bin" calls --cache-dir "$work/c_$1" --no-config --project-root . --format json . 2>/dev/null | md5sum)
  a0=$("$bin" check --no-cache --no-config --exit-zero --project-root . --output-format json . 2>/dev/null | md5sum)
  c0=$("$bin" calls --no-cache --no-config --project-root . --format json . 2>/dev/null | md5sum)
  if [ "$a" != "$a0" ] || [ "$c" != "$c0" ]; then echo "DIFF $1 $2"; bad=1; else echo "same $1 $2"; fi
}
for t in "$trees"/*/; do
  n=$(basename "$t"); cp -al "$t" "$work/$n"; cd "$work/$n" || exit 1
  case "$mode" in
  edit)
    f=$(grep -rl --include='*.py' empty_cache . | sort | head -1)
    [ -n "$f" ] || { cd - >/dev/null; continue; }
    cp --remove-destination "$f" "$f.x"; mv "$f.x" "$f"; touch -d '-1 hour' "$f"
    "$bin" check --cache-dir "$work/c_$n" --no-config --exit-zero --project-root . . >/dev/null 2>&1
    echo "# edited" >> "$f"; same "$n" "comment"
    printf '\n\ndef train():\n    torch.cuda.empty_cache()\n' >> "$f"; same "$n" "helper"
    ;;
  star)
    find . -name __init__.py | while read -r f; do cp --remove-destination "$f" "$f.x"; mv "$f.x" "$f"; touch -d '-1 hour' "$f"; done
    "$bin" check --cache-dir "$work/c_$n" --no-config --exit-zero --project-root . . >/dev/null 2>&1
    find . -name __init__.py | while read -r f; do printf '\nfrom .zz_unrelated import *\n' >> "$f"; done
    same "$n" "star imports"
    ;;
  *) echo "unknown mode $mode" >&2; exit 2 ;;
  esac
  cd - >/dev/null || exit 1
done
echo "bad=$bad"
[ "$bad" = 0 ]
