#!/usr/bin/env bash
# Issue 14's speed table: cachelint's cold, warm and one-file runs against `rg -l empty_cache`
# on the same tree, each the median of N runs alternating cachelint and rg, with peak RSS.
#
# Usage: bench/speed.sh [options]
#   --bin FILE          cachelint binary (default: built from this checkout with go build)
#   --tree DIR          tree to check; repeatable (default: a generated --density real corpus)
#   --one-file PATH     file of the preceding --tree (relative to it) for the one-file row,
#                       checked from its project root as pre-commit does (default: the first
#                       file rg finds mentioning empty_cache)
#   --runs N            timed runs of each command (default 5)
#   --lines N           lines of the generated 1x corpus (default 1000000)
#   --scale "1 2 4"     also time generated corpora of these multiples of the 1x corpus
#                       (cold and warm only; the 1x corpus is the first set of each)
#   --seed S            generator seed (default 1)
#   --work DIR          where the binary, corpora and cache folders go (default /tmp/cachelint-speed)
#   --cold MODE         empty-dir: the cache folder is removed before each cold run (the run
#                       writes it, as a first run does; default); no-cache: pass --no-cache
#   --no-warm           skip the warm rows
# Each tree also gets a one-file row with the file edited before each run (a comment line
# appended, the original put back afterwards): a commit that changed the file.
# The cache folder is always --cache-dir WORK/cache/N (never inside the checked tree). A binary
# without --no-cache has no cache: it runs without those flags and its warm row says so.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
bin="" runs=5 lines=1000000 scale="" seed=1 work=/tmp/cachelint-speed cold=empty-dir warm=1
trees=() ones=()
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin="$2"; shift ;;
    --tree) trees+=("${2%/}"); ones+=(""); shift ;;
    --one-file)
      [ ${#trees[@]} -gt 0 ] || { echo "--one-file goes after its --tree" >&2; exit 2; }
      ones[${#ones[@]}-1]="$2"; shift ;;
    --runs) runs="$2"; shift ;;
    --lines) lines="$2"; shift ;;
    --scale) scale="$2"; shift ;;
    --seed) seed="$2"; shift ;;
    --work) work="$2"; shift ;;
    --cold) cold="$2"; shift ;;
    --no-warm) warm=0 ;;
    -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
case "$cold" in empty-dir|no-cache) ;; *) echo "--cold: empty-dir or no-cache" >&2; exit 2 ;; esac
command -v rg >/dev/null || { echo "speed.sh needs rg (ripgrep)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "speed.sh needs /usr/bin/time (GNU time) for peak RSS" >&2; exit 2; }
mkdir -p "$work"
work="$(cd "$work" && pwd)"

commit="(given binary)"
if [ -z "$bin" ]; then
  bin="$work/cachelint"
  (cd "$here" && go build -o "$bin" ./cmd/cachelint)
  commit="$(git -C "$here" rev-parse --short HEAD)"
  git -C "$here" diff --quiet HEAD -- . ':!bench' 2>/dev/null || commit="$commit+uncommitted changes"
fi
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
flags=(check --exit-zero --no-config --output-format concise)
cache=0
# (not `| grep -q`: under pipefail, grep quitting early fails the pipeline with SIGPIPE)
if "$bin" check --help 2>&1 | grep -c -- --no-cache >/dev/null; then cache=1; fi

gen() { # gen K: the generated corpus at K times --lines; prints its path
  local dir="$work/corpus-l$lines-s$seed-x$1"
  if [ ! -f "$dir/.complete" ]; then
    rm -rf "$dir"
    python3 "$here/bench/gen_corpus.py" "$dir" --density real --lines "$lines" --seed "$seed" --scale "$1" >&2
    touch "$dir/.complete"
  fi
  echo "$dir"
}

ms_now() { date +%s%N; }
# timed CMD...: runs CMD once, appends "wall_ms rss_kb cpu_ms" to $samples (CPU: user+sys,
# which other work on a shared machine disturbs far less than wall time)
timed() {
  local t0 t1 rss
  t0=$(ms_now)
  /usr/bin/time -f '%M %U %S' -o "$work/rss" "$@" >/dev/null 2>"$work/stderr" || {
    local rc=$?
    # rg exits 1 when nothing matches; anything else is a failure
    if [ "$1" != rg ] || [ $rc -ne 1 ]; then echo "failed ($rc): $*" >&2; cat "$work/stderr" >&2; exit 1; fi
  }
  t1=$(ms_now)
  rss=$(tail -n 1 "$work/rss" | awk '{printf "%d %d", $1, ($2 + $3) * 1000}')
  echo "$(( (t1 - t0) / 1000000 )) $rss" >>"$samples"
}
median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print int((a[NR/2]+a[NR/2+1])/2)}'; }
maxcol() { awk -v c="$1" 'BEGIN{m=0} $c>m{m=$c} END{print m}'; }

# row NAME PREP RGDIR CMD...: N alternating runs of rg over RGDIR and of CMD (PREP, a shell
# snippet, runs before each CMD run, untimed); prints a markdown row.
row() {
  local name="$1" prep="$2" rgdir="$3"; shift 3
  local i rgs cls note=""
  rgs="$work/rg.samples" cls="$work/cl.samples"
  : >"$rgs"; : >"$cls"
  for ((i = 0; i < runs; i++)); do
    samples="$rgs" timed rg -l empty_cache "$rgdir"
    eval "$prep"
    samples="$cls" timed "$@"
  done
  local cl rgm rss ratio cpu
  cl=$(median <"$cls"); rgm=$(median <"$rgs"); rss=$(maxcol 2 <"$cls"); cpu=$(awk '{print $3}' "$cls" | median)
  ratio=$(awk -v a="$cl" -v b="$rgm" 'BEGIN{ if (b > 0) printf "%.1fx", a / b; else print "-" }')
  printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$label" "$name" "$cl" "$rgm" "$ratio" "$((rss / 1024))" "$cpu" "$(awk '{print $1}' "$cls" | paste -sd, -)"
}

project_root() { # project_root DIR TREE: nearest folder at or above DIR with a project marker, else TREE
  # (as cachelint finds it: a setup.py beside an __init__.py does not count)
  local d="$1"
  while [ "$d" != / ]; do
    for m in pyproject.toml setup.py setup.cfg .git; do
      [ "$m" = setup.py ] && [ -e "$d/__init__.py" ] && continue
      [ -e "$d/$m" ] && { echo "$d"; return; }
    done
    d="$(dirname "$d")"
  done
  echo "$(cd "$2" && pwd) nomarker"
}

stats() { # files and lines of .py under $1
  local f l
  f=$(find "$1" -name '*.py' -type f | wc -l)
  l=$(find "$1" -name '*.py' -type f -print0 | xargs -0 cat | wc -l)
  echo "$f files, $l lines"
}

bench_tree() { # bench_tree IDX DIR ONEFILE FULL
  local idx="$1" dir="$2" one="$3" full="$4"
  local cdir="$work/cache/$idx" cflags=() coldflags=() prep=":"
  if [ $cache = 1 ]; then
    cflags=(--cache-dir "$cdir")
    if [ "$cold" = no-cache ]; then coldflags=(--no-cache); else coldflags=("${cflags[@]}"); prep="rm -rf '$cdir'"; fi
  fi
  label="$(basename "$dir") ($(stats "$dir"))"
  # untimed warm-up: the OS page cache holds the tree for both tools
  rg -l empty_cache "$dir" >/dev/null || true
  "$bin" "${flags[@]}" "${coldflags[@]}" "$dir" >/dev/null 2>&1
  row cold "$prep" "$dir" "$bin" "${flags[@]}" "${coldflags[@]}" "$dir"
  if [ $warm = 1 ]; then
    if [ $cache = 1 ]; then
      "$bin" "${flags[@]}" "${cflags[@]}" "$dir" >/dev/null 2>&1
      row warm : "$dir" "$bin" "${flags[@]}" "${cflags[@]}" "$dir"
    else
      printf '| %s | warm | = cold | | | | | binary has no --no-cache: no cache, warm = cold |\n' "$label"
    fi
  fi
  [ "$full" = 1 ] || return 0
  if [ -z "$one" ]; then
    one=$(cd "$dir" && rg -l empty_cache -g '*.py' . | sort | head -n 1)
    one="${one#./}"
  fi
  [ -n "$one" ] && [ -f "$dir/$one" ] || { echo "no one-file for $dir" >&2; return 0; }
  local abs root rel rflags=() note="rg: its project"
  abs="$(cd "$(dirname "$dir/$one")" && pwd)/$(basename "$one")"
  root="$(project_root "$(dirname "$abs")" "$dir")"
  if [ "${root% nomarker}" != "$root" ]; then
    # no pyproject.toml, setup.py, setup.cfg or .git above the file (a tree copied without
    # them): cachelint would take the file's folder for the project; name the tree instead
    root="${root% nomarker}" rflags=(--project-root .) note="rg: its project; --project-root . (no project marker)"
  fi
  rel="${abs#"$root"/}"
  # warm it (the cache of a project where the last commit was checked), then time it
  (cd "$root" && "$bin" "${flags[@]}" "${cflags[@]}" "${rflags[@]}" "$rel" >/dev/null 2>&1)
  pushd "$root" >/dev/null
  row "one-file \`$rel\` ($note)" : "$root" "$bin" "${flags[@]}" "${cflags[@]}" "${rflags[@]}" "$rel"
  if [ $cache = 1 ]; then
    # The same file edited before each run (a comment line appended), as pre-commit runs it on
    # a commit that changed it: when the file was parsed, the cached result no longer holds.
    cp -p "$rel" "$work/edited.orig"
    trap 'cp -p "$work/edited.orig" "$root/$rel"' EXIT
    edits=0
    row "one-file \`$rel\`, edited before each run" 'edits=$((edits + 1)); cp -p "$work/edited.orig" "$rel"; printf "\n# speed.sh edit %d\n" "$edits" >>"$rel"' \
      "$root" "$bin" "${flags[@]}" "${cflags[@]}" "${rflags[@]}" "$rel"
    cp -p "$work/edited.orig" "$rel"
    trap - EXIT
  fi
  popd >/dev/null
}

header() {
  echo "| tree | run | cachelint ms (median of $runs) | rg ms (median of $runs) | ratio to rg | peak RSS MB | cachelint CPU ms (median) | cachelint runs, ms |"
  echo "|---|---|---|---|---|---|---|---|"
}

echo "cachelint: $bin (commit $commit, $("$bin" version 2>/dev/null | head -n 1 || echo unknown version))"
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%MZ)"
if [ $cache = 1 ]; then
  echo "cache: cold = $([ "$cold" = no-cache ] && echo "--no-cache" || echo "cache folder removed before each run"); warm = second run, nothing changed (--cache-dir under $work/cache)"
else
  echo "cache: this binary has no --no-cache (no persistent cache): warm runs would equal cold ones"
fi
echo "command: cachelint ${flags[*]} [cache flags] TREE; rg -l empty_cache TREE"
echo
if [ ${#trees[@]} -eq 0 ]; then trees=("$(gen 1)"); ones=(""); fi
header
for i in "${!trees[@]}"; do
  bench_tree "$i" "${trees[$i]}" "${ones[$i]}" 1
done
if [ -n "$scale" ]; then
  echo
  echo "Scaling (generated corpus, --lines $lines per 1x, seed $seed):"
  echo
  header
  for k in $scale; do
    bench_tree "x$k" "$(gen "$k")" "" 0
  done
fi
