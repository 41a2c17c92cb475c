#!/usr/bin/env bash
# Checks that two cachelint builds give the same output on every materialised tree: `check`
# and `calls` JSON of each, without the cache, compared by MD5. The sessions' "byte-identical
# on the labelled trees" claims come from this.
# Usage: bench/realworld/samecheck.sh OLD NEW TREES
#   OLD, NEW: cachelint binaries; TREES: the folder materialise.sh filled.
# Prints a DIFF line per tree and command that differs, and ends with "N of M the same".
set -uo pipefail
old="${1:?usage: samecheck.sh OLD NEW TREES}"; new="${2:?}"; trees="${3:?}"
total=0 same=0
for t in "$trees"/*/; do
  for cmd in "calls --no-cache --no-config --project-root . --format json ." \
             "check --no-cache --no-config --exit-zero --project-root . --output-format json ."; do
    # shellcheck disable=SC2086 # the command's words are split on purpose
    a=$(cd "$t" && "$old" $cmd 2>/dev/null | md5sum)
    # shellcheck disable=SC2086
    b=$(cd "$t" && "$new" $cmd 2>/dev/null | md5sum)
    total=$((total + 1))
    if [ "$a" = "$b" ]; then same=$((same + 1)); else echo "DIFF $(basename "$t"): ${cmd%% *}"; fi
  done
done
echo "$same of $total the same"
[ "$same" = "$total" ]
