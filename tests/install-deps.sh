#!/bin/sh
# Installs what building and testing need on Debian 12 (as root).  Idempotent:
# packages already present are left alone (scripts/install-packages).
set -eu
PKGS="gcc make cmake pkg-config clang libclang-rt-14-dev
libnftnl-dev libmnl-dev libcap-ng-dev libjansson-dev libseccomp-dev binutils
nftables iproute2 util-linux bsdutils procps strace python3 shellcheck git curl wget ca-certificates
podman runc debootstrap uidmap fuse-overlayfs catatonit
python3-kubernetes python3-yaml
docker.io dnsmasq-base tmux stress-ng
gnupg skopeo
qemu-user-static"
# Node.js may come from elsewhere (NodeSource bundles npm and conflicts with
# Debian's npm): ask for the commands, not the packages.
node_pkgs=""
command -v node >/dev/null 2>&1 || node_pkgs="$node_pkgs nodejs"
command -v npm >/dev/null 2>&1 || node_pkgs="$node_pkgs npm"
# shellcheck disable=SC2086 # one word per package
exec sh "$(dirname "$0")/../scripts/install-packages" $PKGS $node_pkgs
