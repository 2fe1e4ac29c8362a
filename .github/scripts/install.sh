#!/usr/bin/env bash
# The action's install step: the release binary of the action's own version, verified, on PATH;
# the build from the action's own checkout only when that release, its asset or its checksum is
# missing or wrong. Says which it did. Reads:
#   ACTION_PATH        the action's checkout (its Cargo.toml names the version)
#   ACTION_REPOSITORY  OWNER/REPO of the action (`github.action_repository`; empty inside a
#                      composite action's own `run:` on some runners, actions/runner#2473)
#   SERVER_URL         `github.server_url`
#   RUNNER_OS, RUNNER_ARCH, RUNNER_TEMP, GITHUB_PATH, GITHUB_OUTPUT
set -euo pipefail
version=v$(sed -n 's/^version = "\(.*\)"$/\1/p' "$ACTION_PATH/Cargo.toml" | head -n 1)
case "${RUNNER_OS:-}" in
  Linux) os=linux ;; macOS) os=darwin ;; Windows) os=windows ;; *) os="" ;;
esac
case "${RUNNER_ARCH:-}" in
  X64) arch=amd64 ;; ARM64) arch=arm64 ;; *) arch="" ;;
esac
exe=""
[ "$os" = windows ] && exe=".exe"
build() {
  echo "gh-sweep: $1; building $version from the action's checkout"
  echo "installed=false" >> "$GITHUB_OUTPUT"
}
if [ -z "${ACTION_REPOSITORY:-}" ]; then
  build "the action's repository is not known here"
  exit 0
fi
if [ -z "$os" ] || [ -z "$arch" ]; then
  build "no release binary for ${RUNNER_OS:-?}/${RUNNER_ARCH:-?}"
  exit 0
fi
asset="gh-sweep_${version}_${os}-${arch}${exe}"
url="${SERVER_URL%/}/$ACTION_REPOSITORY/releases/download/$version/$asset"
dir="${RUNNER_TEMP:-/tmp}/gh-sweep-bin"
mkdir -p "$dir"
if ! curl --fail --silent --show-error --location --retry 2 --output "$dir/$asset" "$url" 2>/dev/null \
  || ! curl --fail --silent --show-error --location --retry 2 --output "$dir/$asset.sha256" "$url.sha256" 2>/dev/null; then
  build "no release $version asset $asset at $SERVER_URL"
  exit 0
fi
expected=$(cut -d ' ' -f 1 < "$dir/$asset.sha256")
actual=$(sha256sum "$dir/$asset" | cut -d ' ' -f 1)
if [ -z "$expected" ] || [ "$expected" != "$actual" ]; then
  rm -f "$dir/$asset"
  build "the checksum of $asset does not match its .sha256"
  exit 0
fi
mv "$dir/$asset" "$dir/gh-sweep$exe"
chmod +x "$dir/gh-sweep$exe"
echo "$dir" >> "$GITHUB_PATH"
echo "installed=true" >> "$GITHUB_OUTPUT"
echo "gh-sweep: downloaded release $version ($asset), checksum verified"
