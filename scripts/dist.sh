#!/usr/bin/env bash
# scripts/dist.sh OUTDIR: the release files of cachelint, written to OUTDIR (new or empty):
#
#   cachelint-linux-amd64, cachelint-linux-arm64        the executables (cgo, -trimpath)
#   cachelint-VERSION-py3-none-manylinux_2_28_x86_64.whl
#   cachelint-VERSION-py3-none-manylinux_2_28_aarch64.whl
#                                                       wheels putting them on PATH
#   SHA256SUMS                                          sha256sum -c checks them all
#
# Each binary must run on any Linux with glibc 2.28 or newer (the manylinux_2_28 of the
# wheel tags): the script fails if one needs a newer GLIBC_ symbol version, links a
# library beyond glibc's own, or links libcuda (probe dlopens libcuda.so.1 at run time,
# so the binary runs where there is no NVIDIA driver).
#
# VERSION is PEP 440, from git describe (internal/release.Version documents the mapping:
# v0.1.0 -> 0.1.0, 3 commits later -> 0.1.1.dev3+gHASH), or CACHELINT_VERSION when set.
# It is stamped into the binaries, so `cachelint version` and `pip show cachelint` agree.
#
# Needs go, git, gcc, binutils (readelf) and, for the other architecture, Debian's cross
# compiler, which the script installs with apt-get when it is missing and apt-get is
# there. macOS and Windows are not built: `go install` on those (see the README).
set -euo pipefail

GLIBC_MAX=2.28
TARGETS=(amd64 arm64)

die() {
  echo "dist.sh: $*" >&2
  exit 1
}

[ "$#" -eq 1 ] || {
  echo "usage: scripts/dist.sh OUTDIR" >&2
  exit 2
}
mkdir -p -- "$1"
out=$(cd -- "$1" && pwd)
[ -z "$(ls -A -- "$out")" ] || die "$out is not empty: give a new or empty directory"
cd "$(dirname "$0")/.."

for tool in go readelf sha256sum; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool is not on PATH (Debian: apt-get install golang binutils coreutils)"
done

tmp=$(mktemp -d)
trap 'rm -rf -- "$tmp"' EXIT
go build -tags release -o "$tmp/release" ./internal/tools/release

if [ -n "${CACHELINT_VERSION:-}" ]; then
  version=$CACHELINT_VERSION
  "$tmp/release" check-version "$version" || die "CACHELINT_VERSION: see above"
else
  command -v git >/dev/null 2>&1 || die "git is not on PATH: it gives the version (or set CACHELINT_VERSION)"
  describe=$(git describe --tags --long --match 'v[0-9]*' --dirty --abbrev=12 --always) ||
    die "git describe failed: run in a clone of cachelint, or set CACHELINT_VERSION"
  version=$("$tmp/release" version "$describe" "$(git rev-list --count HEAD)")
fi
echo "dist.sh: cachelint $version"

host=$(go env GOHOSTARCH)

# compiler GOARCH: the C compiler for a target, installed when missing.
compiler() {
  local cc triplet pkgs
  if [ "$1" = "$host" ]; then
    cc=${CC:-gcc}
    pkgs=(gcc libc6-dev)
  else
    case $1 in
      amd64) triplet=x86_64-linux-gnu pkgs=(gcc-x86-64-linux-gnu libc6-dev-amd64-cross) ;;
      arm64) triplet=aarch64-linux-gnu pkgs=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross) ;;
      *) die "no cross compiler known for $1" ;;
    esac
    cc=$triplet-gcc
  fi
  if ! command -v "$cc" >/dev/null 2>&1; then
    command -v apt-get >/dev/null 2>&1 ||
      die "$cc is not on PATH and there is no apt-get: install the C compiler for linux/$1 (Debian/Ubuntu packages: ${pkgs[*]})"
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo=sudo
    echo "dist.sh: installing ${pkgs[*]} for $cc" >&2
    $sudo apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${pkgs[@]}" >&2 ||
      die "apt-get install ${pkgs[*]} failed"
  fi
  echo "$cc"
}

# check_glibc BINARY: fail when it needs a GLIBC_ version above GLIBC_MAX.
check_glibc() {
  local need
  need=$(readelf -V --wide "$1" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/^GLIBC_//' | sort -uV | tail -n 1)
  [ -n "$need" ] || die "$1: readelf -V finds no GLIBC_ versions: not a dynamic glibc executable?"
  if [ "$(printf '%s\n%s\n' "$need" "$GLIBC_MAX" | sort -V | tail -n 1)" != "$GLIBC_MAX" ]; then
    echo "dist.sh: $1 needs GLIBC_$need; the symbols above $GLIBC_MAX:" >&2
    readelf --dyn-syms --wide "$1" | grep -E "@GLIBC_(2\.(29|[3-9][0-9])|[3-9])" >&2 || true
    die "add them to internal/glibc228 (compat.c), which binds them to their first version"
  fi
  echo "dist.sh: $(basename "$1") needs glibc $need (at most $GLIBC_MAX)"
}

# check_libraries BINARY: glibc's own libraries only (the manylinux allowlist), and no
# libcuda: probe finds libcuda.so.1 with dlopen, at run time.
check_libraries() {
  local needed lib
  needed=$(readelf -d --wide "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  for lib in $needed; do
    case $lib in
      libc.so.6 | libpthread.so.0 | libdl.so.2) ;;
      libcuda*) die "$1 links $lib: probe must dlopen libcuda.so.1 at run time, not link it" ;;
      *) die "$1 links $lib, which is not part of glibc: the wheel's manylinux tag does not allow it" ;;
    esac
  done
  grep -aq 'libcuda\.so\.1' "$1" || die "$1 does not name libcuda.so.1: probe would not find the driver"
}

# check_run BINARY GOARCH: the host's binary (or another's under qemu-user) runs, reports
# the stamped version, and probe reaches for libcuda.so.1.
check_run() {
  local runner=() got probe_out
  if [ "$2" != "$host" ]; then
    local qemu
    case $2 in amd64) qemu=qemu-x86_64 ;; arm64) qemu=qemu-aarch64 ;; esac
    if ! command -v "$qemu" >/dev/null 2>&1; then
      echo "dist.sh: $(basename "$1") not run: no $qemu here (Debian: apt-get install qemu-user)"
      return
    fi
    local sysroot
    case $2 in amd64) sysroot=/usr/x86_64-linux-gnu ;; arm64) sysroot=/usr/aarch64-linux-gnu ;; esac
    runner=("$qemu" -L "$sysroot")
  fi
  got=$("${runner[@]}" "$1" version) || die "$1 version failed"
  [ "$got" = "cachelint $version" ] || [ "${got#"cachelint $version "}" != "$got" ] ||
    die "$1 version printed '$got', want 'cachelint $version'"
  if probe_out=$("${runner[@]}" "$1" probe --processes 1 --reserved-gb 0.25 --segments 4 --no-progress 2>&1); then
    echo "dist.sh: $(basename "$1") probe ran on this machine's GPU"
  else
    case $probe_out in
      *"libcuda.so.1 not found"*) echo "dist.sh: $(basename "$1") probe looks for libcuda.so.1 at run time (no driver here)" ;;
      *) die "$1 probe failed: $probe_out" ;;
    esac
  fi
}

for arch in "${TARGETS[@]}"; do
  cc=$(compiler "$arch")
  bin=$out/cachelint-linux-$arch
  echo "dist.sh: building $(basename "$bin") with $cc"
  # -tags glibc228 binds the symbols glibc 2.34 re-versioned to their first version
  # (internal/glibc228); -s -w leave out the symbol table and DWARF, as release builds of
  # ruff and uv do; the build info (module, dependencies, VCS) stays.
  CGO_ENABLED=1 GOOS=linux GOARCH=$arch CC=$cc go build -trimpath -buildvcs=auto -tags glibc228 \
    -ldflags "-s -w -X github.com/cachelint/cachelint/internal/cli.Version=$version" \
    -o "$bin" ./cmd/cachelint
  check_glibc "$bin"
  check_libraries "$bin"
  check_run "$bin" "$arch"
  "$tmp/release" wheel -binary "$bin" -version "$version" -goarch "$arch" -out "$out"
done

(cd "$out" && sha256sum -- cachelint-linux-* cachelint-*.whl >SHA256SUMS)
echo "dist.sh: wrote $out:"
(cd "$out" && ls -l)
