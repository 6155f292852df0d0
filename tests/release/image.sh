#!/bin/sh
# The release of an image built by image/build.sh (issue 24, docs/release.md), as root:
#   1. SBOM: the document inside the image is the one beside the build
#      (build/sbom/TAG.spdx.json), has SPDX 2.3's required fields, and lists
#      exactly the image's Debian and npm packages and the init's linked
#      archives (tests/release/check_sbom.py), for IMAGE and every IMAGE given;
#   2. the static init on Debian 13: the build stage's init rebuilt from the same
#      sources in other directories is byte-identical, and so is the image's;
#   3. signatures the engine checks at a registry (the signed copy a default
#      build makes is tests/release/signed_copy.sh's): a registry on loopback in
#      a network namespace of this test (Debian's docker-registry binary,
#      unpacked from its package, not installed as a service); the image's signed
#      copy pushed by image/release/release.sh with CLI_SANDBOX_SIGN_BY, a test
#      key of a person's own GnuPG (a temporary GNUPGHOME); a
#      second podman store, the platform's, pulls under deploy/signing/policy.json
#      (its repository and key path set to the test's): the signed image is
#      pulled and runs; the image with one layer changed, unsigned, with the
#      genuine signature copied onto it, or signed by another key, is refused;
#      a layer blob changed in the registry is refused too;
#   4. the manifests pinned from that push pass tests/kube/manifests.py.
#
#   sh tests/release/image.sh [IMAGE...]
# IMAGE defaults to CLI_SANDBOX_TEST_IMAGE (localhost/cli-sandbox:latest); the
# first one is pushed and signed.  SKIP_SIGNING=1 skips 3 and 4.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$ROOT/tests/lib/tap.sh"
[ $# -gt 0 ] || set -- "${CLI_SANDBOX_TEST_IMAGE:-localhost/cli-sandbox:latest}"
IMAGE=$1
BASE=${CLI_SANDBOX_BASE_IMAGE:-localhost/cli-sandbox-base:trixie}
SBOM_DIR=${CLI_SANDBOX_SBOM_DIR:-$ROOT/build/sbom}
RUNARGS=${PODMAN_RUN_ARGS:---runtime runc --ulimit nofile=1024:1024 --ulimit nproc=1000:1000}
NS=cs-release-$$
REPO=127.0.0.1:5000/cli-sandbox-release-test-$$
SIGSTORE=/var/lib/containers/sigstore   # podman's default lookaside (no registries.d)

WORK=$(mktemp -d /tmp/cs-release-image.XXXXXX)
chmod 755 "$WORK"
reg_pid=""
cleanup() {
	[ -z "$reg_pid" ] || kill "$reg_pid" 2>/dev/null
	[ -z "$reg_pid" ] || wait "$reg_pid" 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	for m in $(cat "$WORK/mounted" 2>/dev/null); do podman image unmount "$m" >/dev/null 2>&1; done
	if [ -d "$WORK/consumer" ]; then
		podman --root "$WORK/consumer/root" --runroot "$WORK/consumer/run" rmi -a -f >/dev/null 2>&1
		umount -R "$WORK/consumer/root/overlay" 2>/dev/null
	fi
	rm -rf "$SIGSTORE/cli-sandbox-release-test-$$"@* "$SIGSTORE/cli-sandbox-release-test-$$"
	# Our tags only: the build stage's image stays (the layer cache), the changed copy goes.
	for t in $(cat "$WORK/tags" 2>/dev/null); do podman untag "$t" "$t" >/dev/null 2>&1; done
	[ -z "${changed:-}" ] || podman rmi "$changed" >/dev/null 2>&1
	[ ! -d "$WORK/gnupg" ] || GNUPGHOME="$WORK/gnupg" gpgconf --kill all 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

tag_of() {  # the SBOM's name in build/sbom, as image/release/release.sh's sbom_name gives it
	case ${1##*/} in
	*-gateway | *-gateway:latest) echo gateway ;;
	*-gateway:*) echo "gateway-${1##*:}" ;;
	*:*) echo "${1##*:}" ;;
	*) echo latest ;;
	esac
}

# ------------------------------------------------------------------ 1. SBOM
for name in "$@"; do
	if ! podman image exists "$name"; then
		t_fail "$name exists" "build it: sh image/build.sh $name"
		continue
	fi
	mnt=$(podman image mount "$name") && echo "$name" >>"$WORK/mounted"
	inside=$mnt/usr/share/doc/cli-sandbox/sbom.spdx.json
	beside=$SBOM_DIR/$(tag_of "$name").spdx.json
	if [ -s "$inside" ] && cmp -s "$inside" "$beside"; then
		t_pass "$name: the SBOM inside the image is build/sbom/$(tag_of "$name").spdx.json"
	else
		t_fail "$name: SBOM inside ($inside) and beside ($beside) are not the same file" "$(ls -l "$inside" "$beside" 2>&1)"
	fi
	python3 "$HERE/check_sbom.py" "$inside" "$mnt" >"$WORK/sbom.tap" 2>&1
	while IFS= read -r line; do
		case $line in
		"ok "*) t_pass "$name: ${line#* - }" ;;
		"not ok "*) t_fail "$name: ${line#* - }" ;;
		"# "[0-9]*" passed, "*) ;;
		"# "*) echo "$line" ;;
		esac
	done <"$WORK/sbom.tap"
	grep -q '^# [0-9]* passed, 0 failed$' "$WORK/sbom.tap" || t_fail "$name: check_sbom.py did not finish" "$(tail -5 "$WORK/sbom.tap")"
	podman image unmount "$name" >/dev/null 2>&1
done

# ------------------------------------------------------------------ 2. the static init on Debian 13
# The build stage as image/build.sh built it (from the layer cache), then the
# same sources built again in other directories.
commit=$(podman run --rm $RUNARGS --network none --entrypoint /usr/local/sbin/cli-sandbox-init "$IMAGE" --version | sed -n 's/^commit //p')
epoch=$(podman image inspect --format '{{.Created.Unix}}' "$IMAGE" 2>/dev/null)
stage=localhost/cli-sandbox-release-test:build-stage-$$
echo "$stage" >>"$WORK/tags"
# shellcheck disable=SC2086
if podman build --network host $RUNARGS --target build --build-arg BUILD_BASE="$BASE" \
	--build-arg SOURCE_COMMIT="$commit" --build-arg SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$epoch}" \
	${BUILD_ARGS:-} -t "$stage" "$ROOT" >"$WORK/stage.log" 2>&1; then
	t_pass "the build stage of commit $commit"
else
	t_fail "the build stage" "$(tail -20 "$WORK/stage.log")"
fi
# shellcheck disable=SC2086
podman run --rm $RUNARGS --network none -v "$WORK:/work" "$stage" sh -c '
	set -e
	mkdir -p /elsewhere/a/much/longer/path && cp -a /src /elsewhere/a/much/longer/path/src
	cd /elsewhere/a/much/longer/path/src
	export SOURCE_DATE_EPOCH=$(date +%s)   # a different clock: nothing may depend on it
	cmake -S . -B /tmp/b2 -DCLI_SANDBOX_STATIC=ON -DCLI_SANDBOX_TESTS=OFF -DCLI_SANDBOX_WERROR=ON \
		-DCLI_SANDBOX_COMMIT="$1" >/dev/null
	cmake --build /tmp/b2 -j 2 >/dev/null 2>&1
	cp /build/cli-sandbox-init /work/init.stage; cp /tmp/b2/cli-sandbox-init /work/init.again
	cp /out/usr/local/sbin/cli-sandbox-init /work/init.stage.stripped
	strip --strip-unneeded -o /work/init.again.stripped /tmp/b2/cli-sandbox-init
' sh "$commit" >"$WORK/rebuild.log" 2>&1 || t_fail "the rebuild in other directories" "$(tail -20 "$WORK/rebuild.log")"
if [ -s "$WORK/init.again" ] && cmp -s "$WORK/init.stage" "$WORK/init.again"; then
	t_pass "static init: /src,/build and /elsewhere/...,/tmp/b2 give the same bytes ($(sha256sum <"$WORK/init.again" | cut -c1-16)...)"
else
	t_fail "static init: the two builds differ" "$(cmp "$WORK/init.stage" "$WORK/init.again" 2>&1)"
fi
podman run --rm $RUNARGS --network none --entrypoint cat "$IMAGE" /usr/local/sbin/cli-sandbox-init >"$WORK/init.image" 2>/dev/null
if [ -s "$WORK/init.image" ] && cmp -s "$WORK/init.image" "$WORK/init.again.stripped"; then
	t_pass "the image's init is the rebuilt one, stripped ($(sha256sum <"$WORK/init.image" | cut -c1-16)...)"
else
	t_fail "the image's init differs from the rebuild" "$(cmp "$WORK/init.image" "$WORK/init.again.stripped" 2>&1)"
fi
if ! grep -a -q -e /src/ -e /build/ -e /elsewhere "$WORK/init.again"; then
	t_pass "no build directory in the static init"
else
	t_fail "a build directory is in the static init" "$(strings -a "$WORK/init.again" | grep -e /src/ -e /build/ -e /elsewhere | head -5)"
fi

[ "${SKIP_SIGNING:-0}" = 1 ] && { t_skip "signing (SKIP_SIGNING=1)"; t_done; exit; }

# ------------------------------------------------------------------ 3. signatures
export GNUPGHOME="$WORK/gnupg"
mkdir -m 700 "$GNUPGHOME"
keygen() {  # keygen NAME: prints the new key's fingerprint
	gpg --batch --quiet --passphrase '' --quick-gen-key "$1 <release-test@cli-sandbox.invalid>" ed25519 sign 1d 2>/dev/null
	gpg --list-keys --with-colons "$1" 2>/dev/null | awk -F: '/^fpr/ { print $10; exit }'
}
key=$(keygen "cli-sandbox test release key")
other=$(keygen "someone else")
gpg --export "$key" >"$WORK/release.gpg"
[ -n "$key" ] && [ -n "$other" ] && [ -s "$WORK/release.gpg" ] && t_pass "two test keys in a temporary GNUPGHOME" ||
	t_fail "test keys" "gpg could not make them"

# The registry: Debian's docker-distribution, on loopback of our own namespace.
# Downloaded, not installed: installing it would start the packaged service on :5000.
download_registry() { (cd "$WORK" && apt-get download docker-registry >/dev/null 2>&1); }
download_registry || { apt-get -o DPkg::Lock::Timeout=300 update -qq >/dev/null 2>&1 && download_registry; } || true
if dpkg-deb -x "$WORK"/docker-registry_*.deb "$WORK/registry-pkg" 2>/dev/null; then
	t_pass "Debian's docker-registry, unpacked from its package"
else
	t_fail "Debian's docker-registry package unpacked" "apt-get download docker-registry failed"
fi
cat >"$WORK/registry.yml" <<EOF
version: 0.1
log: {level: warn}
storage: {filesystem: {rootdirectory: $WORK/registry}}
http: {addr: "127.0.0.1:5000"}
EOF
ip netns add "$NS" && ip -n "$NS" link set lo up
ip netns exec "$NS" "$WORK/registry-pkg/usr/bin/docker-registry" serve "$WORK/registry.yml" >"$WORK/registry.log" 2>&1 &
reg_pid=$!
i=0
until ip netns exec "$NS" curl -fs http://127.0.0.1:5000/v2/ >/dev/null 2>&1 || [ $i -ge 50 ]; do sleep 0.2; i=$((i + 1)); done
ip netns exec "$NS" curl -fs http://127.0.0.1:5000/v2/ >/dev/null 2>&1 && t_pass "a registry on 127.0.0.1:5000 in namespace $NS" ||
	t_fail "the registry did not start" "$(cat "$WORK/registry.log")"
in_ns() { ip netns exec "$NS" "$@"; }

# The release step itself: push and sign.
if in_ns env CLI_SANDBOX_PUSH="$REPO" CLI_SANDBOX_SIGN_BY="$key" CLI_SANDBOX_PUSH_ARGS=--dest-tls-verify=false \
	CLI_SANDBOX_RELEASE_OUT="$WORK/out" SOURCE_COMMIT="$commit" SOURCE_DATE_EPOCH="${epoch:-0}" \
	sh "$ROOT/image/release/release.sh" "$IMAGE" >"$WORK/release.log" 2>&1; then
	t_pass "image/release/release.sh pushed and signed $IMAGE"
else
	t_fail "release.sh push and sign" "$(tail -10 "$WORK/release.log")"
fi
pushed=$(cut -f3 "$WORK/out/release/digests.tsv" 2>/dev/null | tail -1)
digest=${pushed#*@}
tag=$(tag_of "$IMAGE")
grep -q "^digest $IMAGE sha256:[0-9a-f]\{64\} (pushed: $REPO@sha256:" "$WORK/release.log" &&
	t_pass "the digest is printed: $pushed" || t_fail "no digest line" "$(cat "$WORK/release.log")"
# The default build's copy of the same image (build/release/digests.tsv), compressed
# apart from this one: the same bytes, so the same digest.
built=$(awk -F'\t' -v n="$IMAGE" '$1 == n { d = $2 } END { print d }' "$ROOT/build/release/digests.tsv" 2>/dev/null)
if [ -z "$built" ]; then
	t_skip "no default build of $IMAGE in build/release/digests.tsv to compare the pushed digest with"
elif [ "$built" = "$digest" ]; then
	t_pass "the pushed digest is the default build's signed copy's: the copy is reproducible"
else
	t_fail "the pushed digest $digest is not the default build's copy's $built"
fi
sig=$SIGSTORE/cli-sandbox-release-test-$$@$(echo "$digest" | tr : =)/signature-1
[ -s "$sig" ] && t_pass "a simple-signing signature for $digest in the lookaside store" ||
	t_fail "no signature at $sig" "$(ls "$SIGSTORE" 2>&1 | head)"

# The platform: its own store, the shipped policy with the test's scope and key.
python3 - "$ROOT/deploy/signing/policy.json" "$REPO" "$WORK/release.gpg" >"$WORK/policy.json" <<'EOF'
import json, sys
p = json.load(open(sys.argv[1]))
rules = p["transports"]["docker"].pop("registry.example.com/cli-sandbox")
for r in rules:
    r["keyPath"] = sys.argv[3]
p["transports"]["docker"][sys.argv[2]] = rules
json.dump(p, sys.stdout, indent=1)
EOF
mkdir -p "$WORK/consumer"
platform() { podman --root "$WORK/consumer/root" --runroot "$WORK/consumer/run" "$@"; }
# Pulls reach the registry in our namespace; runs stay outside it (ip netns
# exec mounts a sysfs of its own, without the cgroup mounts runc needs).
pull() { in_ns podman --root "$WORK/consumer/root" --runroot "$WORK/consumer/run" \
	pull -q --tls-verify=false --signature-policy "$WORK/policy.json" "$@"; }
refused() {  # refused DESCRIPTION REFERENCE PATTERN
	if pull "$2" >"$WORK/pull.log" 2>&1; then
		t_fail "$1: pulled, but must be refused" "$(cat "$WORK/pull.log")"
	elif grep -Eq "$3" "$WORK/pull.log"; then
		t_pass "$1: refused: $(grep -E "$3" "$WORK/pull.log" | head -1 | sed 's/^Error: //' | cut -c1-160)"
	else
		t_fail "$1: refused, but not for the reason expected ($3)" "$(cat "$WORK/pull.log")"
	fi
}

# A layer changed in the registry, under the signed digest: the smallest one.
blob=$(in_ns curl -fs -H 'Accept: application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json' \
	"http://${REPO%%/*}/v2/${REPO#*/}/manifests/$digest" 2>/dev/null | python3 -c '
import json, sys; m = json.load(sys.stdin); print(min(m["layers"], key=lambda l: l["size"])["digest"])' 2>/dev/null)
data=$WORK/registry/docker/registry/v2/blobs/sha256/$(echo "${blob#sha256:}" | cut -c1-2)/${blob#sha256:}/data
if [ -n "$blob" ] && [ -f "$data" ]; then
	cp "$data" "$WORK/blob.orig"
	python3 -c 'import sys; b = bytearray(open(sys.argv[1], "rb").read()); b[len(b) // 2] ^= 1; open(sys.argv[1], "wb").write(b)' "$data"
	refused "a layer blob changed in the registry" "$REPO@$digest" "[Dd]igest did not match|digest mismatch|[Dd]igest.*(expected|match)|invalid.*digest|checksum|gzip|flate|corrupt"
	cp "$WORK/blob.orig" "$data"
else
	t_fail "the registry's smallest layer of $digest" "blob '$blob' at '$data'"
fi

if pull "$REPO@$digest" >"$WORK/pull.log" 2>&1; then
	t_pass "the signed image is pulled under the policy by digest"
else
	t_fail "the signed image is refused" "$(cat "$WORK/pull.log")"
fi
if pull "$REPO:$tag" >"$WORK/pull.log" 2>&1; then
	t_pass "and by tag ($REPO:$tag)"
else
	t_fail "the signed image by tag is refused" "$(cat "$WORK/pull.log")"
fi
# shellcheck disable=SC2086
out=$(platform run --rm $RUNARGS --network none "$REPO@$digest" --version 2>&1)
echo "$out" | grep -qx "commit $commit" && t_pass "the signed image runs on the platform: $(echo "$out" | head -1)" ||
	t_fail "the signed image does not run" "$out"

# The same image with one layer changed: its last layer (the SBOM) rebuilt with
# one byte more, on the same parent.  Pushed over the tag, unsigned.
parent=$(podman image inspect --format '{{.Parent}}' "$IMAGE")
[ -n "$parent" ] || parent=$IMAGE
mkdir -p "$WORK/changed"
podman run --rm $RUNARGS --network none --entrypoint cat "$IMAGE" /usr/share/doc/cli-sandbox/sbom.spdx.json >"$WORK/changed/sbom.spdx.json"
echo >>"$WORK/changed/sbom.spdx.json"
printf 'FROM %s\nCOPY sbom.spdx.json /usr/share/doc/cli-sandbox/sbom.spdx.json\n' "$parent" >"$WORK/changed/Containerfile"
changed=localhost/cli-sandbox-release-test:changed-$$
podman build -q --network none --timestamp "${epoch:-0}" -f "$WORK/changed/Containerfile" -t "$changed" "$WORK/changed" >/dev/null 2>&1
a=$(podman image inspect --format '{{range .RootFS.Layers}}{{.}} {{end}}' "$IMAGE" | sed 's/ $//')
b=$(podman image inspect --format '{{range .RootFS.Layers}}{{.}} {{end}}' "$changed" | sed 's/ $//')
[ "${a% *}" = "${b% *}" ] && [ "${a##* }" != "${b##* }" ] && t_pass "a copy of the image with only its last layer changed" ||
	t_fail "the changed copy" "$a / $b"
in_ns podman push -q --tls-verify=false --digestfile "$WORK/changed.digest" "$changed" "docker://$REPO:$tag" >/dev/null 2>&1
cdigest=$(cat "$WORK/changed.digest" 2>/dev/null)
refused "the changed image, unsigned, under the signed tag" "$REPO:$tag" "signature was required, but no signature exists"
refused "the changed image by its digest" "$REPO@$cdigest" "signature was required, but no signature exists"
# The genuine signature copied onto the changed image: it names the other digest.
mkdir -p "$SIGSTORE/cli-sandbox-release-test-$$@$(echo "$cdigest" | tr : =)"
cp "$sig" "$SIGSTORE/cli-sandbox-release-test-$$@$(echo "$cdigest" | tr : =)/signature-1"
refused "the changed image with the genuine signature copied onto it" "$REPO@$cdigest" "Signature for digest sha256:[0-9a-f]+ does not match"
# Signed by another key.
in_ns podman push -q --tls-verify=false --sign-by "$other" "$changed" "docker://$REPO:other-key" >/dev/null 2>&1
refused "the changed image signed by another key" "$REPO:other-key" "Invalid GPG signature"
# The same signed copy, its signature replaced by the other key's: the same digest.
in_ns skopeo copy -q --dest-tls-verify=false --remove-signatures --sign-by "$other" \
	"dir:$(cut -f4 "$WORK/out/release/digests.tsv" | tail -1)" "docker://$REPO:resigned" >/dev/null 2>&1
# The lookaside reads signature-1, -2, ... up to the first missing one: the
# other key's becomes the only one.
sigdir=$SIGSTORE/cli-sandbox-release-test-$$@$(echo "$digest" | tr : =)
[ -s "$sigdir/signature-2" ] && mv "$sigdir/signature-2" "$sigdir/signature-1"
refused "the genuine image re-signed by another key only" "$REPO:resigned" "Invalid GPG signature"

# ------------------------------------------------------------------ 4. manifests pinned from the push
cp -r "$ROOT/deploy/kubernetes" "$WORK/kubernetes"
if python3 "$ROOT/image/release/pin-manifests.py" "$WORK/out/release/digests.tsv" --dir "$WORK/kubernetes" >"$WORK/pin.log" 2>&1 &&
	[ "$(cat "$WORK/kubernetes/job.yaml" "$WORK/kubernetes/sandboxtemplate.yaml" | grep -c "image: $pushed\$")" = 4 ]; then
	t_pass "the pushed digest pinned in both containers of the Job and the SandboxTemplate"
else
	t_fail "pinning" "$(cat "$WORK/pin.log")"
fi
/usr/bin/python3 "$ROOT/tests/kube/manifests.py" validate "$WORK/kubernetes" >"$WORK/validate.log" 2>&1 &&
	t_pass "the pinned manifests pass tests/kube/manifests.py validate" || t_fail "validate" "$(cat "$WORK/validate.log")"
t_done
