#!/bin/sh
# Installs what building and testing need on Debian 12 (as root).  Idempotent:
# packages already present are left alone.
set -eu
PKGS="gcc make cmake pkg-config clang libclang-rt-14-dev
libnftnl-dev libmnl-dev libcap-ng-dev libjansson-dev
nftables iproute2 util-linux bsdutils procps python3 shellcheck git curl wget ca-certificates
podman runc debootstrap uidmap fuse-overlayfs
docker.io"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
# Node.js may come from elsewhere (NodeSource bundles npm and conflicts with
# Debian's npm): ask for the commands, not the packages.
command -v node >/dev/null 2>&1 || missing="$missing nodejs"
command -v npm >/dev/null 2>&1 || missing="$missing npm"
if [ -n "$missing" ]; then
	echo "installing:$missing"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
