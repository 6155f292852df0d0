#!/bin/sh
# Builds the cli-sandbox image without a container registry: a Debian trixie
# base made with debootstrap (tests/image/make-base-image.sh), Node.js from
# Debian, and the pinned CLIs from npm.  Root and podman needed.
#
#   sudo sh image/build.sh [IMAGE]        (default IMAGE: localhost/cli-sandbox:latest)
#
# Where a registry is reachable, `docker build -t cli-sandbox .` (or
# `host/cli-sandbox build`) uses the official debian:trixie and node images
# instead.  Environment:
#   CLI_SANDBOX_BASE_IMAGE  the local base (default localhost/cli-sandbox-base:trixie)
#   CLI_SANDBOX_EXTRA_CA    a PEM bundle npm trusts during the build, for a TLS-inspecting
#                           proxy (default: the host's bundle; empty: none)
#   PODMAN_ARGS             podman options (default: runc and limits that work in
#                           restricted environments)
#   BUILD_ARGS              more `podman build` options, e.g. --build-arg FETCH_PROVIDER_RANGES=0
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
IMAGE=${1:-localhost/cli-sandbox:latest}
BASE=${CLI_SANDBOX_BASE_IMAGE:-localhost/cli-sandbox-base:trixie}
EXTRA_CA=${CLI_SANDBOX_EXTRA_CA-/etc/ssl/certs/ca-certificates.crt}
PODMAN_ARGS=${PODMAN_ARGS:---runtime runc --ulimit nofile=1024:1024 --ulimit nproc=1000:1000}

[ "$(id -u)" -eq 0 ] || { echo "image/build.sh: run as root (debootstrap and podman)" >&2; exit 1; }
command -v podman >/dev/null 2>&1 || { echo "image/build.sh: podman is missing; apt-get install podman runc" >&2; exit 1; }
sh "$ROOT/tests/image/make-base-image.sh" "$BASE"
secret=""
if [ -n "$EXTRA_CA" ] && [ -s "$EXTRA_CA" ]; then
	secret="--secret id=extra_ca,src=$EXTRA_CA"
fi
# shellcheck disable=SC2086 # the option lists are split on purpose
podman build --network host $PODMAN_ARGS $secret \
	--build-arg BUILD_BASE="$BASE" --build-arg RUNTIME_BASE="$BASE" \
	--build-arg INSTALL_NODEJS_FROM_APT=1 ${BUILD_ARGS:-} -t "$IMAGE" "$ROOT"
echo "built $IMAGE ($(podman image inspect --format '{{.Size}}' "$IMAGE") bytes)"
