#!/usr/bin/env bash
# Packages one built gh-sweep for a release: an archive with its SHA-256 file (for downloads and
# `cargo binstall`) and the raw executable named as `gh extension install` picks assets
# (`<name>_<version>_<os>-<arch>[.exe]`, cli/cli's pkg/cmd/extension/manager.go), with its own
# SHA-256 file (the action verifies it).
#
#   package.sh BINARY VERSION OS ARCH OUTDIR
#
# OS is linux, darwin or windows; ARCH amd64 or arm64; VERSION like v1.2.3.
set -euo pipefail
binary=$1 version=$2 os=$3 arch=$4 out=$5
case "$os" in linux | darwin | windows) ;; *) echo "package.sh: unknown OS '$os'" >&2; exit 2 ;; esac
case "$arch" in amd64 | arm64) ;; *) echo "package.sh: unknown arch '$arch'" >&2; exit 2 ;; esac
[ -f "$binary" ] || { echo "package.sh: no binary at $binary" >&2; exit 2; }
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
exe=""
[ "$os" = windows ] && exe=".exe"
name="gh-sweep-$version-$os-$arch"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir "$stage/$name"
cp "$binary" "$stage/$name/gh-sweep$exe"
cp "$root/README.md" "$stage/$name/"
cp -r "$root/completions" "$stage/$name/"
(cd "$stage" && tar -czf "$out/$name.tar.gz" "$name")
raw="gh-sweep_${version}_${os}-${arch}${exe}"
cp "$binary" "$out/$raw"
chmod +x "$out/$raw"
# `sha256sum`'s own format (`HASH  NAME`), which `sha256sum -c` reads back.
(cd "$out" && sha256sum "$name.tar.gz" > "$name.tar.gz.sha256" && sha256sum "$raw" > "$raw.sha256")
echo "$out/$name.tar.gz"
echo "$out/$raw"
