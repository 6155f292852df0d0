#!/bin/sh
# make-python-image.sh IMAGE [BASE]
#
# Builds a small image with Debian's python3 on top of the local Debian base
# (tests/image/make-base-image.sh), for running the mock gateway and other test
# peers as containers on an engine's own networks (a Docker --internal network,
# say), where a host network namespace cannot be attached.  The scripts
# themselves are bind-mounted at run time, so changing them needs no rebuild:
#
#   docker run -v "$PWD/tests/gateway:/gw:ro" IMAGE python3 /gw/mock_gateway.py ...
#
# An existing IMAGE is reused; FORCE=1 rebuilds it.  Needs root and podman.
set -eu
IMAGE=${1:?usage: make-python-image.sh IMAGE [BASE]}
BASE=${2:-localhost/cli-sandbox-base:trixie}
if [ "${FORCE:-0}" != 1 ] && podman image exists "$IMAGE"; then
	exit 0
fi
podman image exists "$BASE" || sh "$(dirname "$0")/../image/make-base-image.sh" "$BASE"
ctx=$(mktemp -d)
trap 'rm -rf "$ctx"' EXIT
cat >"$ctx/Containerfile" <<'CF'
ARG BASE
FROM ${BASE}
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        python3 && rm -rf /var/lib/apt/lists/*
USER 65534:65534
CF
podman build --network host --runtime runc --ulimit nofile=1024:1024 --ulimit nproc=1000:1000 \
	--build-arg BASE="$BASE" -t "$IMAGE" "$ctx" >/dev/null
