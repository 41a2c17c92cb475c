#!/usr/bin/env bash
# Replays the last N commits of a git checkout as pre-commit checks them: the tree checked out at
# HEAD~N and analysed once with a cache, then for each commit that adds or changes Python files,
# those files checked with the cache (`check --verbose FILES`, timed) and without it. Prints one
# line per commit: "same" or "DIFF" (the two JSON reports), the files, the time, and how the
# cached run went (served from the cache, the call graph kept, or why it ran in full).
# Usage: bench/realworld/replay.sh CACHELINT CHECKOUT N
# CHECKOUT is a clone whose history holds N commits (it is checked out commit by commit, then
# back to the commit it was on).
set -uo pipefail
bin="${1:?usage: replay.sh CACHELINT CHECKOUT N}"; repo="${2:?}"; n="${3:?}"
bin=$(realpath "$bin"); cd "$repo" || exit 1
start=$(git rev-parse HEAD); work=$(mktemp -d)
commits=$(git rev-list --reverse "HEAD~$n..HEAD")
git checkout -q "HEAD~$n"
"$bin" check --cache-dir "$work/cache" --no-config --exit-zero --project-root . . >/dev/null 2>&1
prev=$(git rev-parse HEAD)
for c in $commits; do
  git checkout -q "$c"
  mapfile -t files < <(git diff --name-only --diff-filter=AM "$prev" "$c" -- '*.py')
  prev=$c
  [ "${#files[@]}" -eq 0 ] && continue
  s=$(date +%s%N)
  a=$("$bin" check --verbose --cache-dir "$work/cache" --no-config --exit-zero --project-root . --output-format json "${files[@]}" 2>"$work/v" | md5sum)
  e=$(date +%s%N)
  b=$("$bin" check --no-cache --no-config --exit-zero --project-root . --output-format json "${files[@]}" 2>/dev/null | md5sum)
  how=$(grep -o 'the calls of [0-9]* unchanged file(s) resolved as in the last run\|graph did not hold: [^)]*\|analysis did not hold: [^)]*' "$work/v" | head -1)
  if [ -z "$how" ] && grep -q 'served from the cache\|read again' "$work/v"; then how="from the cache (nothing that mattered changed)"; fi
  [ -n "$how" ] || how="run in full (no entry)"
  scope=$(grep -o '[0-9]* file(s) added and [0-9]* removed since' "$work/v" | head -1)
  [ -n "$scope" ] && how="$how; $scope"
  [ "$a" = "$b" ] && r=same || r=DIFF
  echo "$r ${c:0:8} ${#files[@]} file(s) $(( (e - s) / 1000000 )) ms: $how"
done
git checkout -q "$start"; rm -rf "$work"
