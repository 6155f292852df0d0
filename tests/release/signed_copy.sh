#!/bin/sh
# A plain image/build.sh signs what it builds, and the engine enforces it
# (issue 24, docs/release.md), as root:
#   1. a default build (no CLI_SANDBOX_SIGN_BY, no CLI_SANDBOX_PUSH, no
#      GNUPGHOME) of IMAGE, its output kept: the build says it signed the image,
#      build/release/digests.tsv names its signed copy and signature, the copy
#      is the image (same config digest), the release key lives in
#      build/signing/gnupg (mode 700), and neither the build's output nor any
#      file outside that directory holds the secret key;
#   2. podman, as a platform (a second store, --root), under the shipped
#      deploy/signing/policy.json (its dir: scopes moved to where this test
#      puts the copy, its key path set to build/signing/release-key.asc):
#      - the signed copy is pulled and runs;
#      - the copy with one file of a layer changed (the image made whole again
#        around it, the old signature kept) is refused; the same image under
#        an accept-anything policy is pulled, so the signature is what refuses;
#      - the copy with one byte of a layer blob flipped is refused (a fresh
#        store: one that holds the layer already never reads the blob);
#      - the copy signed by another key is refused;
#      - the copy without its signature is refused;
#   and build/signing/policy.json (what the build wrote) has the same rule;
#   3. the same release steps with docker (what host/cli-sandbox build runs
#      there): IMAGE in a private dockerd, release.sh --engine docker, its
#      signed copy accepted under the policy it wrote, with its SBOM inside
#      (SKIP_DOCKER=1 skips this).
#
#   sh tests/release/signed_copy.sh [IMAGE]
# IMAGE (default CLI_SANDBOX_TEST_IMAGE, localhost/cli-sandbox:claude) is
# REPOSITORY:CLI, built with `image/build.sh --cli CLI REPOSITORY:latest`, or
# any other name, built as the all-in-one.  The build reuses the layer cache.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$ROOT/tests/lib/tap.sh"
IMAGE=${1:-${CLI_SANDBOX_TEST_IMAGE:-localhost/cli-sandbox:claude}}
RUNARGS=${PODMAN_RUN_ARGS:---runtime runc --ulimit nofile=1024:1024 --ulimit nproc=1000:1000}
OUT=$ROOT/build   # where a plain build writes
SIGNING=$OUT/signing

WORK=$(mktemp -d /tmp/cs-signed-copy.XXXXXX)
chmod 755 "$WORK"
cleanup() {
	for store in consumer fresh; do
		[ -d "$WORK/$store" ] || continue
		podman --root "$WORK/$store/root" --runroot "$WORK/$store/run" rmi -a -f >/dev/null 2>&1
		umount -R "$WORK/$store/root/overlay" 2>/dev/null
	done
	[ ! -d "$WORK/gnupg" ] || GNUPGHOME="$WORK/gnupg" gpgconf --kill gpg-agent 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

tag=${IMAGE##*/}
case $tag in *:*) tag=${tag##*:} ;; *) tag=latest ;; esac
case ${IMAGE##*/} in *:*) repo=${IMAGE%:*} ;; *) repo=$IMAGE ;; esac
case $tag in
claude | codex | pi | gemini | opencode) cli=$tag all=$repo:latest ;;
*) cli=all all=$IMAGE ;;
esac

# ------------------------------------------------------------------ 1. the default build
t0=$(date +%s)
if env -u CLI_SANDBOX_SIGN_BY -u CLI_SANDBOX_PUSH -u CLI_SANDBOX_PUSH_ARGS -u CLI_SANDBOX_RELEASE_OUT \
	-u GNUPGHOME CLI_SANDBOX_ENGINE=podman timeout 3600 sh "$ROOT/image/build.sh" --cli "$cli" "$all" \
	>"$WORK/build.log" 2>&1; then
	t_pass "image/build.sh --cli $cli $all, no signing variables ($(($(date +%s) - t0)) s)"
else
	t_fail "image/build.sh --cli $cli $all" "$(tail -20 "$WORK/build.log")"
fi
row=$(awk -F'\t' -v n="$IMAGE" '$1 == n' "$OUT/release/digests.tsv" 2>/dev/null | tail -1)
digest=$(printf '%s' "$row" | cut -f2)
copy=$(printf '%s' "$row" | cut -f4)
sig=$(printf '%s' "$row" | cut -f5)
fpr=$(GNUPGHOME=$SIGNING/gnupg gpg --batch --with-colons --list-secret-keys 2>/dev/null | awk -F: '/^fpr/ { print $10; exit }')
if [ -n "$fpr" ] && grep -q "^signed $IMAGE as .* by $fpr: dir:$copy " "$WORK/build.log"; then
	t_pass "the build says it signed $IMAGE, by the release key $fpr in build/signing/gnupg"
else
	t_fail "no 'signed $IMAGE ... by $fpr' line" "$(grep -e '^signed' -e '^digest' "$WORK/build.log")"
fi
if [ -n "$copy" ] && [ "$sig" = "$copy/signature-1" ] && [ -s "$sig" ] &&
	[ "$(skopeo manifest-digest "$copy/manifest.json" 2>/dev/null)" = "$digest" ]; then
	t_pass "digests.tsv: $digest, the signed copy $copy and its signature"
else
	t_fail "digests.tsv's line for $IMAGE" "$row"
fi
config=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["config"]["digest"])' "$copy/manifest.json" 2>/dev/null)
id=sha256:$(podman image inspect --format '{{.Id}}' "$IMAGE" 2>/dev/null)
[ "$config" = "$id" ] && t_pass "the signed copy is $IMAGE (config $id)" ||
	t_fail "the signed copy's config $config is not $IMAGE's $id"
[ "$(stat -c %a "$SIGNING/gnupg" 2>/dev/null)" = 700 ] && [ -s "$SIGNING/release-key.asc" ] &&
	t_pass "build/signing/gnupg is mode 700; the public part is build/signing/release-key.asc" ||
	t_fail "build/signing" "$(ls -la "$SIGNING" 2>&1)"

# The secret key: its scalar (the key file's d) and every line of its armored
# export, held in this shell only, looked for in the build's output and in
# every file of the repository but the key's own directory.
d=$(sed -n 's/.*(d #\([0-9A-Fa-f]*\)#).*/\1/p' "$SIGNING"/gnupg/private-keys-v1.d/*.key 2>/dev/null | head -1)
armored=$(GNUPGHOME=$SIGNING/gnupg gpg --batch --armor --export-secret-keys "$fpr" 2>/dev/null | sed '1,/^$/d' | grep -v '^[-=]')
GNUPGHOME=$SIGNING/gnupg gpgconf --kill gpg-agent 2>/dev/null
if [ "${#d}" -ge 64 ] && [ -n "$armored" ]; then
	if grep -qi -e "$d" "$WORK/build.log" || printf '%s\n' "$armored" | grep -qF -f - "$WORK/build.log"; then
		t_fail "the build's output holds the secret key"
	else
		t_pass "the build's output ($(wc -l <"$WORK/build.log") lines) holds neither the secret scalar nor any line of the armored secret key"
	fi
	leaks=$(grep -rlis --exclude-dir=gnupg --exclude-dir=.git -e "$d" "$ROOT" 2>/dev/null)
	leaks=$leaks$(printf '%s\n' "$armored" | grep -rlsF --exclude-dir=gnupg --exclude-dir=.git -f - "$ROOT" 2>/dev/null)
	[ -z "$leaks" ] && t_pass "no file of the repository outside build/signing/gnupg holds the secret key" ||
		t_fail "the secret key is in" "$leaks"
else
	t_fail "the release key's secret part in build/signing/gnupg" "$(ls -la "$SIGNING/gnupg/private-keys-v1.d" 2>&1)"
fi

# ------------------------------------------------------------------ 2. the engine, as a platform
# The platform keeps the copy where its policy says (the example's
# /var/lib/cli-sandbox/release, here $WORK/release): the same layout as build/release.
place=$WORK/release/$(basename "$(dirname "$copy")")/$tag
python3 - "$ROOT/deploy/signing/policy.json" "$repo" "$WORK/release" "$SIGNING/release-key.asc" \
	>"$WORK/policy.json" <<'EOF'
import json, sys
p = json.load(open(sys.argv[1]))
repo, release, key = sys.argv[2:5]
dirs = {}
for scope, rules in p["transports"]["dir"].items():
    base, tag = scope[len("/var/lib/cli-sandbox/release/"):].split("/")
    new_base = repo.rsplit("/", 1)[-1] + base[len("cli-sandbox"):]   # keeps -gateway
    for r in rules:
        r["keyPath"] = key
        ident = r["signedIdentity"]
        ident["dockerReference"] = ident["dockerReference"].replace("registry.example.com/cli-sandbox", repo, 1)
    dirs["%s/%s/%s" % (release, new_base, tag)] = rules
p["transports"]["dir"] = dirs
json.dump(p, sys.stdout, indent=1)
EOF
# What the build wrote for this copy is the same rule, at the build's path.
python3 - "$WORK/policy.json" "$place" "$SIGNING/policy.json" "$copy" <<'EOF' >"$WORK/same.log" 2>&1 &&
import json, sys
shipped = json.load(open(sys.argv[1]))["transports"]["dir"][sys.argv[2]]
written = json.load(open(sys.argv[3]))["transports"]["dir"][sys.argv[4]]
sys.exit(0 if shipped == written else "%s\n%s" % (shipped, written))
EOF
	t_pass "build/signing/policy.json has the shipped policy's rule for $copy" ||
	t_fail "build/signing/policy.json's rule for $copy" "$(cat "$WORK/same.log")"

pull() {  # pull STORE POLICY: the copy at $place into that store
	podman --root "$WORK/$1/root" --runroot "$WORK/$1/run" pull -q --signature-policy "$2" "dir:$place"
}
put() {  # put: a fresh copy at $place, hard links to the signed one where the file system allows
	rm -rf "$place" && mkdir -p "$(dirname "$place")" && { cp -al "$copy" "$place" 2>/dev/null || cp -a "$copy" "$place"; }
}
refused() {  # refused DESCRIPTION STORE PATTERN
	if pull "$2" "$WORK/policy.json" >"$WORK/pull.log" 2>&1; then
		t_fail "$1: pulled, but must be refused" "$(cat "$WORK/pull.log")"
	elif grep -Eq "$3" "$WORK/pull.log"; then
		t_pass "$1: refused: $(grep -E "$3" "$WORK/pull.log" | head -1 | sed 's/^Error: //' | cut -c1-150)"
	else
		t_fail "$1: refused, but not for the reason expected ($3)" "$(cat "$WORK/pull.log")"
	fi
}

put
if pulled=$(pull consumer "$WORK/policy.json" 2>"$WORK/pull.log") && [ "sha256:$pulled" = "$id" ]; then
	t_pass "the signed copy is pulled under the shipped policy ($pulled)"
else
	t_fail "the signed copy is refused" "$(cat "$WORK/pull.log")"
fi
# shellcheck disable=SC2086 # option list
out=$(podman --root "$WORK/consumer/root" --runroot "$WORK/consumer/run" run --rm $RUNARGS --network none \
	"${pulled:-none}" --version 2>&1)
echo "$out" | grep -q '^commit ' && t_pass "and runs: $(echo "$out" | head -1), $(echo "$out" | grep '^commit ')" ||
	t_fail "the pulled copy does not run" "$out"

put
python3 "$HERE/tamper.py" "$place" layer >"$WORK/tamper.log" 2>&1 || t_fail "tamper.py layer" "$(cat "$WORK/tamper.log")"
refused "one file of a layer changed, the old signature kept ($(cut -c1-60 "$WORK/tamper.log")...)" consumer \
	"Signature for digest sha256:[0-9a-f]{64} does not match"
echo '{"default": [{"type": "insecureAcceptAnything"}]}' >"$WORK/any.json"
pull fresh "$WORK/any.json" >"$WORK/pull.log" 2>&1 &&
	t_pass "the same changed copy under an accept-anything policy is pulled: the signature is what refuses it" ||
	t_fail "the changed copy is broken, not only unsigned" "$(cat "$WORK/pull.log")"
podman --root "$WORK/fresh/root" --runroot "$WORK/fresh/run" rmi -a -f >/dev/null 2>&1

put
python3 "$HERE/tamper.py" "$place" bytes >"$WORK/tamper.log" 2>&1 || t_fail "tamper.py bytes" "$(cat "$WORK/tamper.log")"
refused "one byte of a layer blob flipped, into a store without that layer" fresh \
	"[Dd]igest did not match|digest mismatch|invalid checksum|flate|corrupt|gzip"

put
mkdir -m 700 "$WORK/gnupg"
export GNUPGHOME="$WORK/gnupg"
gpg --batch --quiet --passphrase '' --quick-gen-key "someone else <other@cli-sandbox.invalid>" ed25519 sign 1d 2>/dev/null
other=$(gpg --batch --with-colons --list-secret-keys 2>/dev/null | awk -F: '/^fpr/ { print $10; exit }')
ident=$(sed -n "s|^signed $IMAGE as \([^ ]*\) by .*|\1|p" "$WORK/build.log" | tail -1)
rm -f "$place/signature-1"
if [ -n "$other" ] && skopeo standalone-sign "$place/manifest.json" "$ident" "$other" -o "$place/signature-1" 2>"$WORK/sign.log"; then
	refused "signed by another key, for the same digest and name" consumer "Invalid GPG signature"
else
	t_fail "another key's signature" "$(cat "$WORK/sign.log")"
fi
unset GNUPGHOME

put
rm -f "$place/signature-1"
refused "without its signature" consumer "A signature was required, but no signature exists"

# ------------------------------------------------------------------ 3. the same steps with docker
# host/cli-sandbox build with docker runs release.sh --engine docker: the image in a
# private dockerd (tests/dockerd.sh), its SBOM read with docker export, its copy with
# skopeo's docker-daemon:.  Written to a directory of this test (its own key there).
if [ "${SKIP_DOCKER:-0}" = 1 ]; then
	t_skip "release.sh --engine docker (SKIP_DOCKER=1)"
	t_done
	exit
fi
. "$ROOT/tests/dockerd.sh"
trap 'dockerd_stop; cleanup' EXIT
if dockerd_start && dockerd_load "$IMAGE"; then
	t_pass "$IMAGE in a private dockerd"
	if PATH=/usr/bin:$PATH env -u CLI_SANDBOX_SIGN_BY -u CLI_SANDBOX_PUSH -u GNUPGHOME \
		CLI_SANDBOX_RELEASE_OUT="$WORK/docker-out" timeout 900 sh "$ROOT/image/release/release.sh" \
		--engine docker "$IMAGE" >"$WORK/docker.log" 2>&1; then
		t_pass "release.sh --engine docker $IMAGE"
	else
		t_fail "release.sh --engine docker" "$(tail -10 "$WORK/docker.log")"
	fi
	dcopy=$(awk -F'\t' -v n="$IMAGE" '$1 == n { c = $4 } END { print c }' "$WORK/docker-out/release/digests.tsv" 2>/dev/null)
	did=$(podman --root "$WORK/fresh/root" --runroot "$WORK/fresh/run" pull -q \
		--signature-policy "$WORK/docker-out/signing/policy.json" "dir:$dcopy" 2>"$WORK/pull.log")
	if [ -n "$did" ]; then
		t_pass "its signed copy is pulled under the policy it wrote ($did)"
	else
		t_fail "docker's signed copy is refused" "$(cat "$WORK/pull.log")"
	fi
	# shellcheck disable=SC2086 # option list
	podman --root "$WORK/fresh/root" --runroot "$WORK/fresh/run" run --rm $RUNARGS --network none \
		--entrypoint cat "${did:-none}" /usr/share/doc/cli-sandbox/sbom.spdx.json >"$WORK/docker-sbom.json" 2>&1
	cmp -s "$WORK/docker-sbom.json" "$WORK/docker-out/sbom/$tag.spdx.json" &&
		t_pass "and holds the SBOM written beside it (docker's SBOM layer)" ||
		t_fail "the SBOM in docker's copy is not the one beside it" "$(head -3 "$WORK/docker-sbom.json")"
else
	t_fail "a private dockerd with $IMAGE" "$(tail -5 "${DOCKERD_DIR:-/nonexistent}/log" 2>&1)"
fi
t_done
