#!/usr/bin/env bash
# Materialise the files the labels name from fetched snapshots, one tree per repository.
# Usage: bench/realworld/materialise.sh OUTDIR [MIRROR]
#   MIRROR (default /work/.mirror) holds one git dir per repository at MIRROR/owner+name/repo,
#   as the fetch tool leaves them. Nothing is fetched here: fetch the repositories first.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
labels="$here/../../testdata/realworld/labels.jsonl"
out="${1:?usage: materialise.sh OUTDIR [MIRROR]}"
mirror="${2:-/work/.mirror}"
mkdir -p "$out"
missing=0
while IFS=$'\t' read -r repo commit; do
  name="${repo/\//+}"
  git_dir="$mirror/$name/repo"
  if ! git -C "$git_dir" cat-file -e "$commit^{commit}" 2>/dev/null; then
    echo "missing: $repo@$commit (fetch github:$repo into $mirror first)" >&2
    missing=$((missing + 1))
    continue
  fi
  dest="$out/$name"
  if [ -f "$dest/.cachelint-commit" ] && [ "$(cat "$dest/.cachelint-commit")" = "$commit" ]; then
    continue
  fi
  rm -rf "$dest" && mkdir -p "$dest"
  # Only what cachelint reads: Python files, notebooks and .gitignore files. Snapshots can
  # lack large blobs (weights, media), so only the blobs that are present are checked out.
  index="$(mktemp)"
  GIT_INDEX_FILE="$index" git --git-dir="$git_dir" read-tree "$commit"
  git --git-dir="$git_dir" ls-tree -r "$commit" |
    awk -F'\t' '$2 ~ /(\.py|\.ipynb|(^|\/)\.gitignore)$/ { split($1, m, " "); print m[3] " " $2 }' |
    git --git-dir="$git_dir" cat-file --batch-check='%(objecttype) %(rest)' |
    awk '$1 == "blob" { sub(/^blob /, ""); printf "%s%c", $0, 0 }' |
    GIT_INDEX_FILE="$index" git --git-dir="$git_dir" --work-tree="$dest" checkout-index -z --stdin
  rm -f "$index"
  echo "$commit" >"$dest/.cachelint-commit"
  echo "materialised $repo@${commit:0:12}" >&2
done < <(jq -r '[.repo, .commit] | @tsv' "$labels" | sort -u)
[ "$missing" -eq 0 ] || { echo "$missing repositories missing" >&2; exit 1; }
