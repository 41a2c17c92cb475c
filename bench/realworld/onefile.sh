#!/usr/bin/env bash
# Checks that a file reported alone, as pre-commit reports it, shows what a run over its
# whole tree shows there: for each materialised tree, `calls` and `check` JSON of the tree,
# then of each of its N files with the most call records (and of one with none) named alone,
# without the cache, compared record by record and finding by finding for that file.
# Usage: bench/realworld/onefile.sh BIN TREES [N]
#   BIN: a cachelint binary; TREES: the folder materialise.sh filled; N: files a tree (4).
# Prints a DIFF line per file that differs, and ends with "N of M the same".
set -uo pipefail
bin="${1:?usage: onefile.sh BIN TREES [N]}"; trees="${2:?}"; n="${3:-4}"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
total=0 same=0
for t in "$trees"/*/; do
  (cd "$t" && "$bin" calls --no-cache --no-config --project-root . --format json . >"$work/calls.json" 2>/dev/null)
  (cd "$t" && "$bin" check --no-cache --no-config --exit-zero --project-root . --output-format json . >"$work/check.json" 2>/dev/null)
  # The files with the most records, and the first parsed-looking file with none.
  mapfile -t files < <(python3 - "$work/calls.json" "$n" "$t" <<'PY'
import json, sys, collections, os
calls = json.load(open(sys.argv[1])); n = int(sys.argv[2])
by = collections.Counter(c["file"] for c in calls)
picked = [f for f, _ in by.most_common(n)]
for d, _, fs in sorted(os.walk(sys.argv[3])):
    py = sorted(f for f in fs if f.endswith(".py"))
    rel = [os.path.relpath(os.path.join(d, f), sys.argv[3]) for f in py]
    rest = [r for r in rel if r not in by and not r.startswith(".")]
    if rest:
        picked.append(rest[0]); break
print("\n".join(picked))
PY
)
  for f in "${files[@]}"; do
    [ -n "$f" ] || continue
    (cd "$t" && "$bin" calls --no-cache --no-config --project-root . --format json "$f" >"$work/c1.json" 2>/dev/null)
    (cd "$t" && "$bin" check --no-cache --no-config --exit-zero --project-root . --output-format json "$f" >"$work/k1.json" 2>/dev/null)
    total=$((total + 1))
    if python3 - "$work" "$f" <<'PY'
import json, sys
w, f = sys.argv[1], sys.argv[2]
def of(name): return [x for x in json.load(open(f"{w}/{name}")) if x["file"] == f]
ok = of("calls.json") == of("c1.json") and of("check.json") == of("k1.json")
sys.exit(0 if ok else 1)
PY
    then same=$((same + 1)); else echo "DIFF $(basename "$t"): $f"; fi
  done
done
echo "$same of $total the same"
[ "$same" = "$total" ]
