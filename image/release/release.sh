#!/bin/sh
# The release steps image/build.sh (and `host/cli-sandbox build`) runs on every
# image it built (issue 24, docs/release.md), whatever the image: the
# all-in-one, one per CLI, or any image added later (it takes names, not targets).
#
#   sh image/release/release.sh [--engine podman|docker] IMAGE...
#
# For each IMAGE (in podman's store, or docker's with --engine docker):
#   1. its SPDX 2.3 SBOM (image/release/spdx.py over the image's file system),
#      added to the image as one last layer at
#      /usr/share/doc/cli-sandbox/sbom.spdx.json (the image is re-tagged) and
#      written beside the build at build/sbom/TAG.spdx.json (the gateway's: gateway.spdx.json);
#   2. a signed copy: the image as a push writes it (gzip layers), in skopeo's
#      dir: layout at build/release/REPOSITORY/TAG (REPOSITORY the last part of
#      the image's), with a simple-signing signature (signature-1) for its
#      manifest digest and its reference: REPOSITORY:TAG as named, or as pushed
#      with CLI_SANDBOX_PUSH.  The key: CLI_SANDBOX_SIGN_BY's (a fingerprint in
#      the person's GnuPG), else the project's release key, made once in
#      build/signing/gnupg (image/release/release-key.sh); its public part is
#      build/signing/release-key.asc, and build/signing/policy.json is the policy
#      (deploy/signing/policy.json's rules) that accepts these copies;
#   3. its digest (the signed copy's: what a registry holds after a push),
#      printed ("digest IMAGE sha256:...") and recorded in
#      build/release/digests.tsv: IMAGE <TAB> DIGEST <TAB> PUSHED-REFERENCE
#      <TAB> SIGNED-COPY <TAB> SIGNATURE;
#   4. with CLI_SANDBOX_PUSH=DEST-REPOSITORY (e.g. registry.example.com/cli-sandbox):
#      the signed copy pushed to DEST-REPOSITORY:TAG (a gateway image to
#      DEST-REPOSITORY-gateway:TAG), its signature with it, to the lookaside
#      store registries.d names (default /var/lib/containers/sigstore); the
#      registry's digest is the copy's.
# Environment: SOURCE_COMMIT, SOURCE_DATE_EPOCH (image/build.sh sets them),
# CLI_SANDBOX_PUSH, CLI_SANDBOX_SIGN_BY, CLI_SANDBOX_PUSH_ARGS (`skopeo copy`
# options, e.g. --dest-tls-verify=false for a test registry on loopback),
# CLI_SANDBOX_RELEASE_OUT (default build/ at the top of the repository).
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${CLI_SANDBOX_RELEASE_OUT:-$ROOT/build}
COMMIT=${SOURCE_COMMIT:-unknown}
EPOCH=${SOURCE_DATE_EPOCH:-0}
die() { echo "image/release/release.sh: $*" >&2; exit 1; }
ENGINE=podman
case ${1:-} in
--engine) [ $# -ge 2 ] || die "--engine needs podman or docker"; ENGINE=$2; shift 2 ;;
--engine=*) ENGINE=${1#--engine=}; shift ;;
esac
case $ENGINE in podman | docker) ;; *) die "--engine $ENGINE: use podman or docker" ;; esac
[ $# -gt 0 ] || die "usage: sh image/release/release.sh [--engine podman|docker] IMAGE..."
# Rootless podman mounts an image's file system only in its user namespace.
if [ "$ENGINE" = podman ] && [ "$(id -u)" -ne 0 ]; then
	exec podman unshare sh "$0" --engine podman "$@"
fi
command -v skopeo >/dev/null 2>&1 || die "skopeo is missing: apt-get install skopeo (it writes the signed copies)"
mkdir -p "$OUT/sbom" "$OUT/release"
digests=$OUT/release/digests.tsv
work=$(mktemp -d)
own_gnupg=""
cleanup() {
	rm -rf "$work"
	# The agent the project's key started; a person's own agent is theirs.
	[ -z "$own_gnupg" ] || GNUPGHOME=$own_gnupg gpgconf --kill gpg-agent 2>/dev/null || true
}
trap cleanup EXIT

# The key: the person's (CLI_SANDBOX_SIGN_BY) or the project's, made once.
[ -n "${CLI_SANDBOX_SIGN_BY:-}" ] || { own_gnupg=$OUT/signing/gnupg; GNUPGHOME=$own_gnupg; export GNUPGHOME; }
FPR=$(sh "$ROOT/image/release/release-key.sh" "$OUT/signing") || die "no key to sign with"

# What differs between the engines: where the image's files and its bytes are read.
storage_of() {  # the image as a containers/image source reference
	case $ENGINE in podman) echo "containers-storage:$1" ;; docker) echo "docker-daemon:$1" ;; esac
}
daemon_host() {  # skopeo reads docker's socket from DOCKER_HOST only when told
	[ "$ENGINE" != docker ] || [ -z "${DOCKER_HOST:-}" ] || echo "--src-daemon-host $DOCKER_HOST"
}
rootfs_open() {  # rootfs_open IMAGE: prints a directory holding the image's file system
	case $ENGINE in
	podman) podman image mount "$1" ;;
	docker)
		mkdir "$work/rootfs"
		cid=$(docker create "$1" true) || return 1
		# Only what spdx.py reads; tar's status is 2 when a gateway image lacks some.
		docker export "$cid" | tar -x --no-same-owner -C "$work/rootfs" -f - --wildcards 'var/lib/dpkg/*' \
			etc/os-release usr/lib/os-release 'usr/local/*' 'usr/share/doc/cli-sandbox/*' 2>/dev/null || true
		docker rm "$cid" >/dev/null
		[ -f "$work/rootfs/var/lib/dpkg/status" ] || return 1
		echo "$work/rootfs" ;;
	esac
}
rootfs_close() {
	case $ENGINE in
	podman) podman image unmount "$1" >/dev/null || true ;;
	docker) rm -rf "$work/rootfs" ;;
	esac
}
build_layer() {  # build_layer IMAGE: the Containerfile in $work, tagged IMAGE
	case $ENGINE in
	# --timestamp: this layer's files and the image's creation time are the
	# commit's, so the same SBOM makes the same layer.
	podman) podman build --quiet --network none --timestamp "$EPOCH" -f "$work/Containerfile" -t "$1" "$work" ;;
	docker) docker build --quiet --network none -f "$work/Containerfile" -t "$1" "$work" ;;
	esac
}

tag_of() {  # the tag of a name: after the last ':' of its last path component
	case ${1##*/} in *:*) echo "${1##*:}" ;; *) echo latest ;; esac
}

sbom_name() {  # the SBOM's file name in build/sbom: TAG, but the gateway's (REPOSITORY-gateway:TAG,
	# image/build.sh --cli gateway) gateway[-TAG], so that it does not overwrite the all-in-one's
	case ${1##*/} in
	*-gateway | *-gateway:latest) echo gateway ;;
	*-gateway:*) echo "gateway-$(tag_of "$1")" ;;
	*-broker | *-broker:latest) echo broker ;;
	*-broker:*) echo "broker-$(tag_of "$1")" ;;
	*) tag_of "$1" ;;
	esac
}

sbom() {  # sbom IMAGE: writes the SBOM and adds it to the image
	name=$1 tag=$(sbom_name "$1")
	mnt=$(rootfs_open "$name") || die "cannot read the file system of $name ($ENGINE)"
	status=0
	python3 "$ROOT/image/release/spdx.py" "$mnt" --name "$name" --commit "$COMMIT" --epoch "$EPOCH" \
		>"$work/sbom.spdx.json" || status=$?
	# Run again on an image that has it already (a push after the build), the
	# same SBOM: the image is left as it is.
	same=0
	cmp -s "$mnt/usr/share/doc/cli-sandbox/sbom.spdx.json" "$work/sbom.spdx.json" && same=1
	rootfs_close "$name"
	[ "$status" -eq 0 ] || die "the SBOM of $name could not be made"
	cp "$work/sbom.spdx.json" "$OUT/sbom/$tag.spdx.json"
	if [ "$same" = 1 ]; then
		echo "image/release/release.sh: $name already holds this SBOM -> $OUT/sbom/$tag.spdx.json"
		return 0
	fi
	printf 'FROM %s\nCOPY sbom.spdx.json /usr/share/doc/cli-sandbox/sbom.spdx.json\n' "$name" >"$work/Containerfile"
	build_layer "$name" >/dev/null ||
		die "the SBOM layer of $name could not be built"
	echo "image/release/release.sh: $name: SBOM of $(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["packages"]))' "$work/sbom.spdx.json") packages -> $OUT/sbom/$tag.spdx.json and /usr/share/doc/cli-sandbox/sbom.spdx.json"
}

ident_of() {  # the reference a signature names: the pushed one, else the local name
	case ${1##*/} in *:*) repo=${1%:*} ;; *) repo=$1 ;; esac
	if [ -n "${CLI_SANDBOX_PUSH:-}" ]; then
		# image/build.sh's gateway is REPOSITORY-gateway: pushed as PUSH-gateway.
		case $repo in
		*-gateway) repo=$CLI_SANDBOX_PUSH-gateway ;;
		*-broker) repo=$CLI_SANDBOX_PUSH-broker ;;
		*) repo=$CLI_SANDBOX_PUSH ;;
		esac
	fi
	# A short name is podman's localhost/NAME; a signature names a full reference.
	case ${repo%%/*} in *.* | *:* | localhost) ;; *) repo=localhost/$repo ;; esac
	echo "$repo:$(tag_of "$1")"
}

signed_copy() {  # signed_copy IMAGE IDENTITY COPY: the image as it would be pushed, signed
	rm -rf "$3.new"
	mkdir -p "$(dirname "$3")"
	# --dest-compress: gzip layers, as a push writes them, so that pushing the copy
	# changes no byte and its signature holds at the registry.
	# shellcheck disable=SC2046 # no words, or the two of --src-daemon-host
	skopeo copy --quiet --dest-compress --sign-by "$FPR" --sign-identity "$2" $(daemon_host) \
		"$(storage_of "$1")" "dir:$3.new" >"$work/copy.log" 2>&1 ||
		{ cat "$work/copy.log" >&2; die "cannot write the signed copy of $1 to $3"; }
	[ -s "$3.new/signature-1" ] || die "skopeo wrote no signature for $1"
	rm -rf "$3"
	mv "$3.new" "$3"
}

for name in "$@"; do
	sbom "$name"
	ident=$(ident_of "$name")
	copy=$OUT/release/$(basename "${ident%:*}")/$(tag_of "$name")
	signed_copy "$name" "$ident" "$copy"
	digest=$(skopeo manifest-digest "$copy/manifest.json")
	[ -n "$digest" ] || die "no digest for $name"
	pushed=""
	if [ -n "${CLI_SANDBOX_PUSH:-}" ]; then
		# The signed copy itself, its signature with it (to the lookaside store
		# registries.d names): the registry's digest is the copy's.
		# shellcheck disable=SC2086 # option lists
		skopeo copy --quiet ${CLI_SANDBOX_PUSH_ARGS:-} --digestfile "$work/digest" "dir:$copy" "docker://$ident" >&2 ||
			die "pushing $name to $ident failed"
		[ "$(cat "$work/digest")" = "$digest" ] || die "the registry's digest of $ident is $(cat "$work/digest"), not the signed copy's $digest"
		pushed=${ident%:*}@$digest
	fi
	# The policy that accepts this copy (and the push): the shipped rules, this key.
	python3 "$ROOT/image/release/policy.py" "$ROOT/deploy/signing/policy.json" "$OUT/signing/policy.json" \
		"$OUT/signing/release-key.asc" --dir "$copy" "$ident" ${pushed:+--docker "${ident%:*}"} ||
		die "cannot write $OUT/signing/policy.json"
	printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$digest" "$pushed" "$copy" "$copy/signature-1" >>"$work/digests"
	echo "digest $name $digest${pushed:+ (pushed: $pushed)}"
	echo "signed $name as $ident by $FPR: dir:$copy (signature $copy/signature-1)"
done
# Replace earlier lines of the same images, keep the others'.
if [ -f "$digests" ]; then
	cut -f1 "$work/digests" | awk -F'\t' 'NR==FNR { seen[$1]; next } !($1 in seen)' - "$digests" >"$work/old" || true
	cat "$work/old" "$work/digests" >"$digests"
else
	cp "$work/digests" "$digests"
fi
echo "image/release/release.sh: digests in $digests; pin the manifests with: python3 image/release/pin-manifests.py $digests"
echo "image/release/release.sh: verify a copy as a platform would: podman pull --signature-policy $OUT/signing/policy.json dir:$copy"
