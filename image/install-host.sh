#!/bin/sh
# Puts the host side on PATH (docs/hostctl.md): builds cli-sandbox-ctl (hostctl/) and installs
#   PREFIX/lib/cli-sandbox/cli-sandbox and its lib/   the runner script and its helpers
#   PREFIX/bin/cli-sandbox                            a link to it (the script finds lib/ through it)
#   PREFIX/bin/cli-sandbox-ctl                        the host program
# PREFIX defaults to /usr/local. The build goes to build/host in the repository. Called by
# image/build.sh (the README's set-up); run alone to update only the host side.
#
#   sh image/install-host.sh [PREFIX]
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PREFIX=${1:-/usr/local}
die() { echo "image/install-host.sh: $*" >&2; exit 1; }
if [ "$(id -u)" -eq 0 ]; then
	sh "$ROOT/scripts/install-packages" gcc make cmake pkg-config libnftnl-dev libmnl-dev libcap-ng-dev \
		libjansson-dev libseccomp-dev libcurl4-openssl-dev
fi
cmake -S "$ROOT" -B "$ROOT/build/host" -DCLI_SANDBOX_TESTS=OFF -DCLI_SANDBOX_HOST=ON >"$ROOT/build/host.log" 2>&1 ||
	die "configuring the build failed: see $ROOT/build/host.log"
cmake --build "$ROOT/build/host" --target cli-sandbox-ctl >>"$ROOT/build/host.log" 2>&1 ||
	die "building cli-sandbox-ctl failed: see $ROOT/build/host.log"
install -d "$PREFIX/bin" "$PREFIX/lib/cli-sandbox/lib"
install -m 0755 "$ROOT/host/cli-sandbox" "$PREFIX/lib/cli-sandbox/cli-sandbox"
install -m 0644 "$ROOT"/host/lib/* "$PREFIX/lib/cli-sandbox/lib/"
install -m 0755 "$ROOT/build/host/hostctl/cli-sandbox-ctl" "$PREFIX/bin/cli-sandbox-ctl"
ln -sfn "$PREFIX/lib/cli-sandbox/cli-sandbox" "$PREFIX/bin/cli-sandbox"
echo "image/install-host.sh: $PREFIX/bin/cli-sandbox and $PREFIX/bin/cli-sandbox-ctl ($("$PREFIX/bin/cli-sandbox-ctl" version --short))"
