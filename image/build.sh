#!/bin/sh
# Builds the cli-sandbox image without a container registry: a Debian trixie base made
# with debootstrap (tests/image/make-base-image.sh), Node.js from Debian, the pinned CLIs
# from npm. Run as root; no sudo needed. What it needs (podman, runc, debootstrap) it
# installs itself with apt-get.
#
#   sh image/build.sh [--cli LIST] [IMAGE]
#
# IMAGE (default localhost/cli-sandbox:latest, the name host/cli-sandbox runs by default)
# is the all-in-one image. LIST is a comma-separated choice of all (the default), claude,
# codex, pi, gemini and opencode: each CLI's own image (that CLI only, and its CMD) is tagged REPOSITORY:CLI,
# REPOSITORY being IMAGE without its tag, e.g. localhost/cli-sandbox:codex, which is where
# host/cli-sandbox looks for it. All of them share the base and toolset layers, and every
# CLI is downloaded once. LIST may also name gateway: the model gateway's image
# (docs/gateway.md), tagged REPOSITORY-gateway:TAG (localhost/cli-sandbox-gateway:latest
# for the default IMAGE), where host/cli-sandbox looks for it; it is not part of all.
# LIST may also name broker: the key broker's image (docs/broker.md), nginx from Debian,
# tagged REPOSITORY-broker:TAG (localhost/cli-sandbox-broker:latest); not part of all either.
#
# Without --cli (the README's set-up), it builds the default set, all, gateway and broker (runs keep keys out through it), and ends
# with `host/cli-sandbox demo` (docs/host-script.md, "See it work"): claude against a scripted
# model, showing the sandbox at work; its failure is this script's. CLI_SANDBOX_BUILD_DEMO=0
# leaves the demo out; an engine that cannot run it is skipped with a line saying why.
#
# The images are built with podman. When host/cli-sandbox would run docker here
# (CLI_SANDBOX_ENGINE=docker, or docker installed and CLI_SANDBOX_ENGINE unset), they are
# also loaded into docker (podman save | docker load).
#
# It also puts the host side on PATH: cli-sandbox and cli-sandbox-ctl in /usr/local/bin
# (image/install-host.sh).
#
# Where a registry is reachable, `host/cli-sandbox build` (docker build) uses the
# official debian:trixie and node images instead.  Environment:
#   CLI_SANDBOX_ENGINE      docker or podman: where host/cli-sandbox will look for the images
#   CLI_SANDBOX_BASE_IMAGE  the local base (default localhost/cli-sandbox-base:trixie)
#   CLI_SANDBOX_EXTRA_CA    a PEM bundle npm trusts during the build, for a TLS-inspecting
#                           proxy (default: the host's bundle; empty: none)
#   PODMAN_ARGS             podman options (default: runc and limits that work in
#                           restricted environments)
#   BUILD_ARGS              more `podman build` options, e.g. --build-arg FETCH_PROVIDER_RANGES=0
#
# Release (docs/release.md): every image built gets an SPDX SBOM (in the image and
# at build/sbom/TAG.spdx.json), a signed copy (build/release/REPOSITORY/TAG, skopeo's
# dir: layout with its signature; build/signing/policy.json accepts it) and its
# digest printed and kept in build/release/digests.tsv (image/release/release.sh);
# the init inside is built reproducibly from the commit (SOURCE_COMMIT,
# SOURCE_DATE_EPOCH from git), and every layer's file times and the image's time
# are SOURCE_DATE_EPOCH (--timestamp; the layer cache still applies).  The images
# are signed by default, with the project's release key, made once without a
# passphrase in build/signing/gnupg (public part: build/signing/release-key.asc).
#   CLI_SANDBOX_SIGN_BY     sign with this key of your own GnuPG instead (fingerprint)
#   CLI_SANDBOX_PUSH        also push every signed copy, signature and all, to this
#                           repository (TAG kept; the gateway to REPOSITORY-gateway)
#   CLI_SANDBOX_PUSH_ARGS   more `skopeo copy` options for the push
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "image/build.sh: $*" >&2; exit 1; }
usage() { die "usage: sh image/build.sh [--cli all,claude,codex,pi,gemini,opencode,gateway,broker] [IMAGE]"; }

clis=all,gateway,broker default_set=true
while [ $# -gt 0 ]; do
	case $1 in
	--cli) [ $# -ge 2 ] || usage; clis=$2 default_set=false; shift 2 ;;
	--cli=*) clis=${1#--cli=} default_set=false; shift ;;
	-h | --help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) usage ;;
	*) break ;;
	esac
done
[ $# -le 1 ] || usage
IMAGE=${1:-localhost/cli-sandbox:latest}
BASE=${CLI_SANDBOX_BASE_IMAGE:-localhost/cli-sandbox-base:trixie}
EXTRA_CA=${CLI_SANDBOX_EXTRA_CA-/etc/ssl/certs/ca-certificates.crt}
PODMAN_ARGS=${PODMAN_ARGS:---runtime runc --ulimit nofile=1024:1024 --ulimit nproc=1000:1000}

# REPOSITORY: IMAGE without its tag (a ':' in the last path component; a registry's
# host:port stays).
case $IMAGE in
'' | -* | *@*) die "bad image name '$IMAGE': use REPOSITORY[:TAG], e.g. localhost/cli-sandbox:latest" ;;
esac
case ${IMAGE##*/} in
*:*) REPO=${IMAGE%:*} TAG=${IMAGE##*:} ;;
*) REPO=$IMAGE TAG=latest ;;
esac
targets='' names=''
for cli in $(printf '%s' "$clis" | tr ',' ' '); do
	case $cli in
	all) name=$IMAGE ;;
	claude | codex | pi | gemini | opencode) name=$REPO:$cli ;;
	gateway) name=$REPO-gateway:$TAG ;;
	broker) name=$REPO-broker:$TAG ;;
	*) die "unknown CLI '$cli' in --cli: use all, claude, codex, pi, gemini, opencode, gateway or broker (comma-separated)" ;;
	esac
	targets="$targets $cli:$name" names="$names $name"
done
[ -n "$targets" ] || usage

engine=${CLI_SANDBOX_ENGINE:-}
if [ -z "$engine" ]; then
	if command -v docker >/dev/null 2>&1; then engine=docker; else engine=podman; fi
fi
case $engine in
docker | podman) ;;
*) die "CLI_SANDBOX_ENGINE=$engine: use docker or podman" ;;
esac

[ "$(id -u)" -eq 0 ] || die "run as root (debootstrap and podman need it; e.g. sudo sh image/build.sh)"
sh "$ROOT/scripts/install-packages" podman runc debootstrap debian-archive-keyring ca-certificates python3 \
	skopeo gnupg
# --- release (issue 24): what the init and the SBOMs say they are built from.
SOURCE_COMMIT=${SOURCE_COMMIT:-$(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo unknown)}
if [ "$SOURCE_COMMIT" != unknown ] && ! git -C "$ROOT" diff --quiet HEAD -- 2>/dev/null; then
	SOURCE_COMMIT=$SOURCE_COMMIT-dirty
fi
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$ROOT" log -1 --format=%ct 2>/dev/null || echo 0)}
export SOURCE_COMMIT SOURCE_DATE_EPOCH
# --- end release
sh "$ROOT/image/install-host.sh" # cli-sandbox and cli-sandbox-ctl on PATH (/usr/local/bin)
sh "$ROOT/tests/image/make-base-image.sh" "$BASE"
secret=""
if [ -n "$EXTRA_CA" ] && [ -s "$EXTRA_CA" ]; then
	secret="--secret id=extra_ca,src=$EXTRA_CA"
fi
for t in $targets; do
	cli=${t%%:*} name=${t#*:}
	echo "image/build.sh: building $name (target $cli)"
	# shellcheck disable=SC2086 # the option lists are split on purpose
	podman build --network host $PODMAN_ARGS $secret \
		--build-arg BUILD_BASE="$BASE" --build-arg RUNTIME_BASE="$BASE" \
		--build-arg INSTALL_NODEJS_FROM_APT=1 \
		--build-arg SOURCE_COMMIT="$SOURCE_COMMIT" --build-arg SOURCE_DATE_EPOCH="$SOURCE_DATE_EPOCH" \
		--timestamp "$SOURCE_DATE_EPOCH" \
		${BUILD_ARGS:-} --target "$cli" -t "$name" "$ROOT"
done
# shellcheck disable=SC2086 # one word per image
sh "$ROOT/image/release/release.sh" $names # SBOM layer, signed copy, digests, push (issue 24)
for name in $names; do
	echo "built $name ($(podman image inspect --format '{{.Size}}' "$name") bytes)"
done

if [ "$engine" = docker ]; then
	if docker version >/dev/null 2>&1; then
		echo "image/build.sh: loading$names into docker"
		# shellcheck disable=SC2086 # one word per image
		podman save -m $names | docker load
	else
		echo "image/build.sh: warning: host/cli-sandbox runs docker here, but docker does not answer:" \
			"start docker and run 'podman save -m$names | docker load'," \
			"or use podman: export CLI_SANDBOX_ENGINE=podman" >&2
	fi
fi

# The README's set-up ends by showing the main job working: the demo, on the engine that
# host/cli-sandbox runs here (docs/host-script.md, "See it work").
[ "$default_set" = true ] || exit 0
if [ "${CLI_SANDBOX_BUILD_DEMO:-1}" = 0 ]; then
	echo "image/build.sh: CLI_SANDBOX_BUILD_DEMO=0: the demo is left out (run it with: host/cli-sandbox demo)"
	exit 0
fi
# host/cli-sandbox runs podman where docker's daemon does not answer, and the images are
# in podman's storage: the demo runs there too (a docker client without a daemon is common).
if [ "$engine" = docker ] && ! docker version >/dev/null 2>&1; then
	echo "image/build.sh: docker does not answer: the demo runs on podman, as host/cli-sandbox would"
	engine=podman
fi
demo_global=${CLI_SANDBOX_ENGINE_GLOBAL_ARGS-}
# podman runs the demo with the runtime it built with (runc, installed above).
[ "$engine" != podman ] || [ -n "${CLI_SANDBOX_ENGINE_GLOBAL_ARGS+set}" ] || demo_global="--runtime runc"
echo "image/build.sh: the images are built; now the demo (host/cli-sandbox demo):"
if ! CLI_SANDBOX_ENGINE_GLOBAL_ARGS=$demo_global sh "$ROOT/host/cli-sandbox" --engine "$engine" --image "$IMAGE" demo; then
	die "the images are built, but the demo failed (above: the steps that did not hold); run it again with: host/cli-sandbox demo --keep"
fi
