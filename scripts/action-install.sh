#!/usr/bin/env bash
# The Action's install step (action.yml): puts the release binary of cachelint that matches
# the action's own ref on PATH, checked against the release's SHA256SUMS; no Go, no C
# compiler. Run locally against a folder written by scripts/dist.sh:
#
#   CACHELINT_VERSION=v0.1.0 CACHELINT_RELEASE_URL=file:///path/to/dist \
#   RUNNER_OS=Linux RUNNER_ARCH=X64 RUNNER_TEMP=/tmp GITHUB_PATH=/tmp/path \
#     scripts/action-install.sh
#
# Environment (action.yml sets it from the inputs and the github context):
#   CACHELINT_VERSION      the version input: a release tag (v0.1.0) or latest; empty: the
#                          action's own ref
#   CACHELINT_ACTION_REF   ${{ github.action_ref }}, the ref in `uses: cachelint/cachelint@REF`
#   CACHELINT_ACTION_REPOSITORY  ${{ github.action_repository }} (default cachelint/cachelint)
#   CACHELINT_GO_INSTALL   true: a ref that is not a release tag (a branch, a commit) is
#                          built with `go install` instead (needs Go and a C compiler)
#   CACHELINT_RELEASE_URL  where the release's files are (default the GitHub release of the
#                          version); any URL curl reads, file:// included
#   RUNNER_OS, RUNNER_ARCH, RUNNER_TEMP, GITHUB_PATH  as the runner sets them
set -euo pipefail

die() {
  echo "::error title=cachelint install::$*"
  echo "action-install.sh: $*" >&2
  exit 1
}

repo=${CACHELINT_ACTION_REPOSITORY:-cachelint/cachelint}
ref=${CACHELINT_VERSION:-${CACHELINT_ACTION_REF:-}}
# github.action_ref is documented as unreliable in composite actions (actions/runner#2473);
# the runner checks a remote action out at RUNNER_WORK/_actions/OWNER/REPO/REF, so the path
# names the ref too.
if [ -z "$ref" ] && [[ ${GITHUB_ACTION_PATH:-} == */_actions/*/*/* ]]; then
  IFS=/ read -r _ _ ref _ <<<"${GITHUB_ACTION_PATH##*/_actions/}"
fi
[ -n "$ref" ] || die "no version to install: set the action's version input to a release tag (v0.1.0); an action used from a local path (uses: ./) has no ref of its own"
bindir=${RUNNER_TEMP:?RUNNER_TEMP is not set}/cachelint/bin
mkdir -p "$bindir"

add_to_path() {
  if [ -n "${GITHUB_PATH:-}" ]; then
    echo "$bindir" >>"$GITHUB_PATH"
  fi
  echo "action-install.sh: $("$bindir/cachelint" version) in $bindir"
}

if ! [[ $ref =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ || $ref == latest ]]; then
  if [ "${CACHELINT_GO_INSTALL:-false}" != true ]; then
    die "$ref is not a release tag (vMAJOR.MINOR.PATCH, or latest): release binaries exist only for those. Use a release tag, or set go-install: true to build $ref with go install (needs Go and a C compiler)"
  fi
  command -v go >/dev/null 2>&1 || die "go-install: true, but there is no go on PATH"
  echo "action-install.sh: building cachelint@$ref with go install"
  GOBIN=$bindir go install "github.com/$repo/cmd/cachelint@$ref" || die "go install github.com/$repo/cmd/cachelint@$ref failed"
  add_to_path
  exit 0
fi

[ "${RUNNER_OS:-}" = Linux ] ||
  die "release binaries are for Linux runners (this one is ${RUNNER_OS:-unknown}); elsewhere set go-install: true"
case ${RUNNER_ARCH:-} in
  X64) arch=amd64 ;;
  ARM64) arch=arm64 ;;
  *) die "no release binary for runner architecture ${RUNNER_ARCH:-unknown} (there are X64 and ARM64)" ;;
esac
asset=cachelint-linux-$arch

if [ -z "${CACHELINT_RELEASE_URL:-}" ]; then
  if [ "$ref" = latest ]; then
    CACHELINT_RELEASE_URL=https://github.com/$repo/releases/latest/download
  else
    CACHELINT_RELEASE_URL=https://github.com/$repo/releases/download/$ref
  fi
fi
url=${CACHELINT_RELEASE_URL%/}

tmp=$(mktemp -d)
trap 'rm -rf -- "$tmp"' EXIT
for f in SHA256SUMS "$asset"; do
  curl -fsSL --retry 3 -o "$tmp/$f" "$url/$f" || die "cannot download $url/$f"
done

# sha256sum writes "HASH  NAME" ("HASH *NAME" in binary mode).
want=$(awk -v f="$asset" '{ n = $2; sub(/^\*/, "", n) } n == f { print $1 }' "$tmp/SHA256SUMS")
[ -n "$want" ] || die "$url/SHA256SUMS has no line for $asset"
got=$(sha256sum "$tmp/$asset" | cut -d ' ' -f 1)
[ "$got" = "$want" ] || die "checksum mismatch for $asset: SHA256SUMS says $want, the download is $got"

install -m 0755 "$tmp/$asset" "$bindir/cachelint"
if [ "$ref" != latest ]; then
  reported=$("$bindir/cachelint" version) || die "$bindir/cachelint does not run on this runner"
  case $reported in
    "cachelint ${ref#v}" | "cachelint ${ref#v} "*) ;;
    *) die "the $ref release binary reports '$reported', not cachelint ${ref#v}" ;;
  esac
fi
add_to_path
