#!/usr/bin/env bash
# Checks that a cached run shows what the analysis shows, on every materialised tree: a cached
# run first, then a change, then `check` and `calls` JSON with the cache against --no-cache.
# Usage: bench/realworld/cachecheck.sh CACHELINT TREES WORK MODE
#   TREES: the folder materialise.sh filled; WORK: a scratch folder (emptied); MODE:
#   edit  two edits of the first file naming empty_cache (a comment; a new helper named train)
#   star  `from .zz_unrelated import *` appended to every __init__.py (import questions)
#   interface  edits that change what other files may read of the first two files naming
#         empty_cache, one after another: a module-level assignment, a function, a class and
#         an import appended; an assignment before the first empty_cache line
#   onefile  the first file naming empty_cache edited and checked alone, as pre-commit runs
#         it (the entry then holds that file's analysis only), against the same run without
#         the cache; then the whole tree (which takes that entry up)
#   scope files added and removed, one after another (the scope an entry holds for): a new
#         module; a module without needles named as the first file naming empty_cache, at
#         the root and in a new folder (where an import of that name may look first, or
#         find two); that file's package's __init__.py removed; a file naming no needle
#         removed; a file naming no needle moved to a new folder; the first file removed
# Prints one line per tree and change ("same" or "DIFF", and how the cached run went: cached,
# kept (the call graph of unchanged files) or full) and ends with bad=0 or bad=1.
set -uo pipefail
bin="${1:?usage: cachecheck.sh CACHELINT TREES WORK MODE}"
trees="${2:?}"; work="${3:?}"; mode="${4:?}"
rm -rf "$work"; mkdir -p "$work"; bad=0
same() { # same TREE LABEL: cached check/calls against --no-cache
  local a c a0 c0
  a=$("$bin" check --verbose --cache-dir "$work/c_$1" --no-config --exit-zero --project-root . --output-format json . 2>"$work/v" | md5sum)
  c=$("$bin" calls --cache-dir "$work/c_$1" --no-config --project-root . --format json . 2>/dev/null | md5sum)
  a0=$("$bin" check --no-cache --no-config --exit-zero --project-root . --output-format json . 2>/dev/null | md5sum)
  c0=$("$bin" calls --no-cache --no-config --project-root . --format json . 2>/dev/null | md5sum)
  how=full
  if grep -q 'no change that matters\|none changed since' "$work/v"; then how=cached; elif grep -q 'resolved as in the last run' "$work/v"; then how=kept; fi
  if [ "$a" != "$a0" ] || [ "$c" != "$c0" ]; then echo "DIFF $1 $2 ($how)"; bad=1; else echo "same $1 $2 ($how)"; fi
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
  interface)
    mapfile -t fs < <(grep -rl --include='*.py' empty_cache . | sort | head -2)
    [ "${#fs[@]}" -gt 0 ] || { cd - >/dev/null; continue; }
    for f in "${fs[@]}"; do cp --remove-destination "$f" "$f.x"; mv "$f.x" "$f"; touch -d '-1 hour' "$f"; done
    "$bin" check --cache-dir "$work/c_$n" --no-config --exit-zero --project-root . . >/dev/null 2>&1
    for f in "${fs[@]}"; do
      printf '\nEDITED_VALUE = 1\n' >> "$f"; same "$n" "$f: an assignment"
      printf '\n\ndef _edited_fn(x):\n    return x\n' >> "$f"; same "$n" "$f: a function"
      printf '\n\nclass _Edited:\n    def step(self):\n        return _edited_fn(self)\n' >> "$f"; same "$n" "$f: a class"
      printf '\nimport os as _edited_os\n' >> "$f"; same "$n" "$f: an import"
      python3 - "$f" <<'PY'
import re, sys
p = sys.argv[1]
lines = open(p, encoding="utf-8", errors="surrogateescape").read().split("\n")
for i, l in enumerate(lines):
    if "empty_cache" in l and not l.lstrip().startswith("#"):
        indent = l[: len(l) - len(l.lstrip())]
        lines.insert(i, indent + "_edited = 1")
        break
open(p, "w", encoding="utf-8", errors="surrogateescape").write("\n".join(lines))
PY
      same "$n" "$f: an assignment before the call"
    done
    ;;
  onefile)
    f=$(grep -rl --include='*.py' empty_cache . | sort | head -1)
    [ -n "$f" ] || { cd - >/dev/null; continue; }
    cp --remove-destination "$f" "$f.x"; mv "$f.x" "$f"; touch -d '-1 hour' "$f"
    "$bin" check --cache-dir "$work/c_$n" --no-config --exit-zero --project-root . . >/dev/null 2>&1
    echo "# edited" >> "$f"
    for cmd in "check --exit-zero" calls; do
      # shellcheck disable=SC2086 # the command's words are split on purpose
      a=$("$bin" $cmd --cache-dir "$work/c_$n" --no-config --project-root . --format json "$f" 2>/dev/null | md5sum)
      # shellcheck disable=SC2086
      a0=$("$bin" $cmd --no-cache --no-config --project-root . --format json "$f" 2>/dev/null | md5sum)
      if [ "$a" != "$a0" ]; then echo "DIFF $n $f alone: ${cmd%% *}"; bad=1; else echo "same $n $f alone: ${cmd%% *}"; fi
    done
    same "$n" "the whole tree after $f alone"
    ;;
  scope)
    f=$(grep -rl --include='*.py' empty_cache . | sort | head -1)
    [ -n "$f" ] || { cd - >/dev/null; continue; }
    "$bin" check --cache-dir "$work/c_$n" --no-config --exit-zero --project-root . . >/dev/null 2>&1
    printf 'x = 1\n' > zz_added.py; same "$n" "a module added"
    b=$(basename "$f")
    if [ ! -e "$b" ]; then printf 'from os import *\n' > "$b"; same "$n" "$b added at the root"; fi
    mkdir -p zz_dir; printf 'from os import *\n' > "zz_dir/$b"; same "$n" "zz_dir/$b added"
    d=$(dirname "$f")
    if [ -e "$d/__init__.py" ] && [ "$d/__init__.py" != "$f" ]; then rm "$d/__init__.py"; same "$n" "$d/__init__.py removed"; fi
    g=$(grep -rL --include='*.py' empty_cache . | grep -v '__init__.py$' | sort | sed -n 3p)
    if [ -n "$g" ]; then rm "$g"; same "$n" "$g removed"; fi
    g=$(grep -rL --include='*.py' empty_cache . | grep -v '__init__.py$' | sort | sed -n 5p)
    if [ -n "$g" ]; then mkdir -p zz_moved; mv "$g" zz_moved/; same "$n" "$g moved"; fi
    rm "$f"; same "$n" "$f removed"
    ;;
  *) echo "unknown mode $mode" >&2; exit 2 ;;
  esac
  cd - >/dev/null || exit 1
done
echo "bad=$bad"
[ "$bad" = 0 ]
