#!/bin/sh
# The release steps image/build.sh runs on every image it built (issue 24,
# docs/release.md), whatever the image: the all-in-one, one per CLI, or any
# image added later (it takes names, not targets).
#
#   sh image/release/release.sh IMAGE...
#
# For each IMAGE:
#   1. its SPDX 2.3 SBOM (image/release/spdx.py over the image's file system,
#      mounted read-only), added to the image as one last layer at
#      /usr/share/doc/cli-sandbox/sbom.spdx.json (the image is re-tagged) and
#      written beside the build at build/sbom/TAG.spdx.json;
#   2. its digest, printed ("digest IMAGE sha256:...") and recorded in
#      build/release/digests.tsv (IMAGE <TAB> DIGEST <TAB> PUSHED-REFERENCE);
#   3. with CLI_SANDBOX_PUSH=DEST-REPOSITORY (e.g. registry.example.com/cli-sandbox,
#      or localhost:5000/cli-sandbox): pushed to DEST-REPOSITORY:TAG, signed
#      on the way with CLI_SANDBOX_SIGN_BY (a GnuPG key's fingerprint; simple
#      signing, the signature stored where registries.d says), and the digest
#      recorded is the registry's (a push recompresses the layers, so that is
#      the digest a platform pulls).  Without CLI_SANDBOX_SIGN_BY nothing is
#      signed, and it says so.
# Environment: SOURCE_COMMIT, SOURCE_DATE_EPOCH (image/build.sh sets them),
# CLI_SANDBOX_PUSH, CLI_SANDBOX_SIGN_BY, CLI_SANDBOX_PUSH_ARGS (e.g.
# --tls-verify=false for a test registry on loopback), CLI_SANDBOX_RELEASE_OUT
# (default build/ at the top of the repository).
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${CLI_SANDBOX_RELEASE_OUT:-$ROOT/build}
COMMIT=${SOURCE_COMMIT:-unknown}
EPOCH=${SOURCE_DATE_EPOCH:-0}
die() { echo "image/release/release.sh: $*" >&2; exit 1; }
[ $# -gt 0 ] || die "usage: sh image/release/release.sh IMAGE..."
mkdir -p "$OUT/sbom" "$OUT/release"
digests=$OUT/release/digests.tsv
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

tag_of() {  # the tag of a name: after the last ':' of its last path component
	case ${1##*/} in *:*) echo "${1##*:}" ;; *) echo latest ;; esac
}

sbom() {  # sbom IMAGE: writes the SBOM and adds it to the image
	name=$1 tag=$(tag_of "$1")
	mnt=$(podman image mount "$name") || die "cannot mount $name to read its file system"
	status=0
	python3 "$ROOT/image/release/spdx.py" "$mnt" --name "$name" --commit "$COMMIT" --epoch "$EPOCH" \
		>"$work/sbom.spdx.json" || status=$?
	# Run again on an image that has it already (a push after the build), the
	# same SBOM: the image is left as it is.
	same=0
	cmp -s "$mnt/usr/share/doc/cli-sandbox/sbom.spdx.json" "$work/sbom.spdx.json" && same=1
	podman image unmount "$name" >/dev/null || true
	[ "$status" -eq 0 ] || die "the SBOM of $name could not be made"
	cp "$work/sbom.spdx.json" "$OUT/sbom/$tag.spdx.json"
	if [ "$same" = 1 ]; then
		echo "image/release/release.sh: $name already holds this SBOM -> $OUT/sbom/$tag.spdx.json"
		return 0
	fi
	printf 'FROM %s\nCOPY sbom.spdx.json /usr/share/doc/cli-sandbox/sbom.spdx.json\n' "$name" >"$work/Containerfile"
	# --timestamp: this layer's files and the image's creation time are the
	# commit's, so the same SBOM makes the same layer.
	podman build --quiet --network none --timestamp "$EPOCH" -f "$work/Containerfile" -t "$name" "$work" >/dev/null ||
		die "the SBOM layer of $name could not be built"
	echo "image/release/release.sh: $name: SBOM of $(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["packages"]))' "$work/sbom.spdx.json") packages -> $OUT/sbom/$tag.spdx.json and /usr/share/doc/cli-sandbox/sbom.spdx.json"
}

push_signed() {  # push_signed IMAGE: prints the registry's digest
	name=$1 dest=$CLI_SANDBOX_PUSH:$(tag_of "$1")
	sign=""
	if [ -n "${CLI_SANDBOX_SIGN_BY:-}" ]; then
		sign="--sign-by $CLI_SANDBOX_SIGN_BY"
	else
		echo "image/release/release.sh: warning: $dest is not signed: set CLI_SANDBOX_SIGN_BY to a GnuPG key's fingerprint" >&2
	fi
	# shellcheck disable=SC2086 # option lists
	podman push --quiet ${CLI_SANDBOX_PUSH_ARGS:-} $sign --digestfile "$work/digest" "$name" "docker://$dest" >&2 ||
		die "pushing $name to $dest failed"
	cat "$work/digest"
}

for name in "$@"; do
	sbom "$name"
	digest=$(podman image inspect --format '{{.Digest}}' "$name")
	pushed=""
	if [ -n "${CLI_SANDBOX_PUSH:-}" ]; then
		digest=$(push_signed "$name")
		pushed=$CLI_SANDBOX_PUSH@$digest
	fi
	[ -n "$digest" ] || die "no digest for $name"
	printf '%s\t%s\t%s\n' "$name" "$digest" "$pushed" >>"$work/digests"
	echo "digest $name $digest${pushed:+ (pushed: $pushed)}"
done
# Replace earlier lines of the same images, keep the others'.
if [ -f "$digests" ]; then
	cut -f1 "$work/digests" | awk -F'\t' 'NR==FNR { seen[$1]; next } !($1 in seen)' - "$digests" >"$work/old" || true
	cat "$work/old" "$work/digests" >"$digests"
else
	cp "$work/digests" "$digests"
fi
echo "image/release/release.sh: digests in $digests; pin the manifests with: python3 image/release/pin-manifests.py $digests"
