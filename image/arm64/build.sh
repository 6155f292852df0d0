#!/bin/sh
# Cross-builds the static cli-sandbox-init for arm64 on Debian 13 and runs its
# unit tests under qemu-user (image/arm64/Containerfile; issue 24,
# docs/release.md), then copies the result to build/arm64/:
# cli-sandbox-init, version, init-archives.tsv, unit-tests.log, dry-run.nft.
#
#   sh image/arm64/build.sh
# Environment: CLI_SANDBOX_BASE_IMAGE (default localhost/cli-sandbox-base:trixie,
# made by image/build.sh), PODMAN_ARGS as image/build.sh.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BASE=${CLI_SANDBOX_BASE_IMAGE:-localhost/cli-sandbox-base:trixie}
PODMAN_ARGS=${PODMAN_ARGS:---runtime runc --ulimit nofile=1024:1024 --ulimit nproc=1000:1000}
OUT=$ROOT/build/arm64
TAG=localhost/cli-sandbox-init-arm64:build
die() { echo "image/arm64/build.sh: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || die "run as root (podman, and image/build.sh's base image)"
podman image exists "$BASE" || sh "$ROOT/tests/image/make-base-image.sh" "$BASE"
SOURCE_COMMIT=${SOURCE_COMMIT:-$(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo unknown)}
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$ROOT" log -1 --format=%ct 2>/dev/null || echo 0)}
# shellcheck disable=SC2086 # option list
podman build --network host $PODMAN_ARGS -f "$ROOT/image/arm64/Containerfile" \
	--ignorefile "$ROOT/image/arm64/dockerignore" \
	--build-arg BUILD_BASE="$BASE" --build-arg SOURCE_COMMIT="$SOURCE_COMMIT" \
	--build-arg SOURCE_DATE_EPOCH="$SOURCE_DATE_EPOCH" -t "$TAG" "$ROOT"
rm -rf "$OUT"
mkdir -p "$OUT"
# shellcheck disable=SC2086
podman run --rm $PODMAN_ARGS --network none -v "$OUT:/copy" "$TAG" sh -c 'cp -a /out/. /copy/'
readelf -hW "$OUT/cli-sandbox-init" | grep -q 'Machine:.*AArch64' || die "$OUT/cli-sandbox-init is not an arm64 program"
readelf -lW "$OUT/cli-sandbox-init" | grep -q INTERP && die "$OUT/cli-sandbox-init is not static"
echo "image/arm64/build.sh: $OUT/cli-sandbox-init ($(sha256sum <"$OUT/cli-sandbox-init" | cut -c1-16)...):"
sed 's/^/  /' "$OUT/version"
tail -3 "$OUT/unit-tests.log" | sed 's/^/  /'
