#!/bin/sh
# make-base-image.sh IMAGE_NAME
#
# Builds a Debian trixie "minbase" root filesystem with debootstrap and imports it
# into podman as IMAGE_NAME (for example localhost/cli-sandbox-base:trixie), for
# machines that cannot pull from a container registry. An existing IMAGE_NAME is
# reused as is; set FORCE=1 to rebuild it.
#
# The Debian mirror is not written here: it is read at run time from the host's
# apt sources (/etc/apt/sources.list.d/*.sources "URIs:" lines, else
# /etc/apt/sources.list "deb" lines), or taken from $MIRROR / $SECURITY_MIRROR.
#
# Needs root, podman, and debootstrap (installed with apt-get when missing).
# Environment: SUITE (default trixie), FORCE=1, MIRROR, SECURITY_MIRROR,
# WORKDIR (parent of the temporary rootfs, default /var/tmp), BASE_ARCH (a Debian
# architecture other than this machine's, e.g. arm64: debootstrap's second stage
# then runs under qemu-user, so binfmt_misc needs a handler for it, as
# tests/release/arm64_image.sh registers; the image is imported as that arch).

set -eu

usage() {
	echo "usage: $0 IMAGE_NAME   (e.g. localhost/cli-sandbox-base:trixie)" >&2
	exit 2
}

[ $# -eq 1 ] || usage
IMAGE=$1
case $IMAGE in "" | -*) usage ;; esac
SUITE=${SUITE:-trixie}

log() { printf '%s make-base-image: %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

# step NAME CMD...: run one step and report how long it took.
step() {
	name=$1; shift
	t0=$(date +%s)
	log "$name ..."
	"$@"
	log "$name done in $(( $(date +%s) - t0 ))s"
}

[ "$(id -u)" -eq 0 ] || die "must run as root (debootstrap and podman import)"
command -v podman >/dev/null 2>&1 || die "podman not found"

if [ "${FORCE:-0}" != 1 ] && podman image exists "$IMAGE"; then
	log "reusing existing image $IMAGE (FORCE=1 rebuilds it)"
	exit 0
fi

# --- the mirror, read from the host's apt configuration -----------------------
# host_uri main|security: the first URI of the host's apt sources for the main archive
# (URIs without "security") or for the security archive.
pick() {
	if [ "$1" = security ]; then grep -e security; else grep -v -e security; fi
}
host_uri() {
	uri=
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		uri=$(sed -n 's/^[[:space:]]*URIs:[[:space:]]*//p' "$f" | tr -s ' \t' '\n' |
			grep -E '^(https?|file)://' | pick "$1" | head -n 1) || true
		[ -n "$uri" ] && break
	done
	if [ -z "$uri" ] && [ -r /etc/apt/sources.list ]; then
		uri=$(sed -n 's/^[[:space:]]*deb[[:space:]]\{1,\}\(\[[^]]*\][[:space:]]\{1,\}\)\{0,1\}\([^[:space:]]*\).*/\2/p' \
			/etc/apt/sources.list | pick "$1" | head -n 1) || true
	fi
	printf '%s' "$uri"
}

MIRROR=${MIRROR:-$(host_uri main)}
SECURITY_MIRROR=${SECURITY_MIRROR:-$(host_uri security)}
[ -n "$MIRROR" ] || die "no Debian mirror found in /etc/apt/sources.list.d/*.sources or /etc/apt/sources.list; set MIRROR"
log "mirror: $MIRROR${SECURITY_MIRROR:+, security: $SECURITY_MIRROR}"

# --- debootstrap ---------------------------------------------------------------
install_debootstrap() {
	timeout 600 apt-get update -qq
	DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -qq --no-install-recommends \
		debootstrap debian-archive-keyring >/dev/null
}
if ! command -v debootstrap >/dev/null 2>&1; then
	step "installing debootstrap" install_debootstrap
fi
[ -e "/usr/share/debootstrap/scripts/$SUITE" ] ||
	die "this debootstrap has no script for $SUITE; upgrade debootstrap"

WORK=$(mktemp -d "${WORKDIR:-/var/tmp}/cli-sandbox-rootfs.XXXXXX")
ROOTFS=$WORK/rootfs
cleanup() {
	# debootstrap may leave /proc or /sys mounted after a failure
	for m in proc sys dev/pts dev; do
		if mountpoint -q "$ROOTFS/$m" 2>/dev/null; then umount -l "$ROOTFS/$m" || true; fi
	done
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ARCH_ARGS=""
[ -z "${BASE_ARCH:-}" ] || ARCH_ARGS="--arch=$BASE_ARCH"
# shellcheck disable=SC2086 # empty or one word
step "debootstrap $ARCH_ARGS --variant=minbase $SUITE" \
	timeout 3600 debootstrap $ARCH_ARGS --variant=minbase "$SUITE" "$ROOTFS" "$MIRROR"

configure_rootfs() {
	{
		printf 'deb %s %s main\n' "$MIRROR" "$SUITE"
		printf 'deb %s %s-updates main\n' "$MIRROR" "$SUITE"
		if [ -n "$SECURITY_MIRROR" ]; then
			printf 'deb %s %s-security main\n' "$SECURITY_MIRROR" "$SUITE"
		fi
	} >"$ROOTFS/etc/apt/sources.list"
	# container-friendly apt defaults, as in the official debian images
	printf 'APT::Install-Recommends "false";\nAPT::Install-Suggests "false";\n' \
		>"$ROOTFS/etc/apt/apt.conf.d/90cli-sandbox-no-recommends"
	printf 'path-exclude /usr/share/doc/*\npath-include /usr/share/doc/*/copyright\npath-exclude /usr/share/man/*\npath-exclude /usr/share/info/*\npath-exclude /usr/share/locale/*\npath-include /usr/share/locale/locale.alias\n' \
		>"$ROOTFS/etc/dpkg/dpkg.cfg.d/90cli-sandbox-nodoc"
	rm -rf "$ROOTFS"/var/cache/apt/archives/*.deb "$ROOTFS"/var/lib/apt/lists/* \
		"$ROOTFS"/var/log/* "$ROOTFS"/tmp/* "$ROOTFS"/var/tmp/*
	: >"$ROOTFS/etc/machine-id"
	rm -f "$ROOTFS/etc/hostname" "$ROOTFS/etc/resolv.conf"
}
step "configuring the rootfs" configure_rootfs

import_rootfs() {
	tar --numeric-owner --xattrs -C "$ROOTFS" -c . |
		podman import ${BASE_ARCH:+--arch "$BASE_ARCH"} \
			--change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
			--change 'ENV LANG=C.UTF-8' \
			--change 'CMD ["/bin/bash"]' \
			--message "debootstrap $ARCH_ARGS --variant=minbase $SUITE" \
			- "$IMAGE" >/dev/null
}
step "podman import as $IMAGE" import_rootfs

log "done: $IMAGE ($(podman image inspect --format '{{.Size}}' "$IMAGE") bytes)"
