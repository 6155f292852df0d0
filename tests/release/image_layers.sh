#!/bin/sh
# A measurement, not a test (issue 24, docs/release.md): how far the image is
# reproducible.  Builds one Dockerfile target twice from scratch (--no-cache),
# both with image/build.sh's arguments and --timestamp SOURCE_DATE_EPOCH, then
# prints, layer by layer, whether the two builds gave the same layer, and for
# the file systems the files that differ and in what (content, mode, owner,
# mtime, link).  Only success is asserted (both builds finish).
#
#   sh tests/release/image_layers.sh [TARGET]      (default: claude)
# Environment: CLI_SANDBOX_BASE_IMAGE, PODMAN_ARGS as image/build.sh.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TARGET=${1:-claude}
BASE=${CLI_SANDBOX_BASE_IMAGE:-localhost/cli-sandbox-base:trixie}
PODMAN_ARGS=${PODMAN_ARGS:---runtime runc --ulimit nofile=1024:1024 --ulimit nproc=1000:1000}
COMMIT=$(git -C "$ROOT" rev-parse HEAD)
EPOCH=$(git -C "$ROOT" log -1 --format=%ct)
A=localhost/cli-sandbox-release-layers:a-$$ B=localhost/cli-sandbox-release-layers:b-$$
cleanup() {
	podman image unmount "$A" "$B" >/dev/null 2>&1 || true
	podman rmi "$A" "$B" >/dev/null 2>&1 || true
}
trap cleanup EXIT
for img in "$A" "$B"; do
	start=$(date +%s)
	# shellcheck disable=SC2086 # option list
	podman build --no-cache --network host $PODMAN_ARGS \
		--build-arg BUILD_BASE="$BASE" --build-arg RUNTIME_BASE="$BASE" --build-arg INSTALL_NODEJS_FROM_APT=1 \
		--build-arg SOURCE_COMMIT="$COMMIT" --build-arg SOURCE_DATE_EPOCH="$EPOCH" --timestamp "$EPOCH" \
		--secret id=extra_ca,src=/etc/ssl/certs/ca-certificates.crt \
		--target "$TARGET" -t "$img" "$ROOT" >"/tmp/cs-layers-$$-${img##*-}.log" 2>&1 ||
		{ tail -20 "/tmp/cs-layers-$$-${img##*-}.log"; exit 1; }
	echo "built $img in $(($(date +%s) - start)) s"
done
rm -f /tmp/cs-layers-$$-*.log
history() {
	podman history --no-trunc --format '{{.CreatedBy}}' "$1" | tac | sed 's/^\/bin\/sh -c //' | cut -c1-70
}
la=$(podman image inspect --format '{{range .RootFS.Layers}}{{.}} {{end}}' "$A")
lb=$(podman image inspect --format '{{range .RootFS.Layers}}{{.}} {{end}}' "$B")
i=0
for l in $la; do
	i=$((i + 1))
	m=$(echo "$lb" | tr ' ' '\n' | sed -n "${i}p")
	if [ "$l" = "$m" ]; then echo "layer $i: same      ${l#sha256:}"; else echo "layer $i: DIFFERENT ${l#sha256:} / ${m#sha256:}"; fi
done
echo "history (steps with a layer are the ones above, in order):"
history "$A" | grep -v '#(nop)' | sed 's/^/  /'
echo "image digests: $(podman image inspect --format '{{.Digest}}' "$A") / $(podman image inspect --format '{{.Digest}}' "$B")"
ma=$(podman image mount "$A") mb=$(podman image mount "$B")
python3 - "$ma" "$mb" <<'EOF'
import hashlib, os, stat, sys
a, b = sys.argv[1], sys.argv[2]
def walk(root):
    out = {}
    for d, dirs, files in os.walk(root):
        for n in dirs + files:
            p = os.path.join(d, n)
            st = os.lstat(p)
            rel = os.path.relpath(p, root)
            if stat.S_ISREG(st.st_mode):
                with open(p, "rb") as f:
                    h = hashlib.sha256(f.read()).hexdigest()
            elif stat.S_ISLNK(st.st_mode):
                h = "-> " + os.readlink(p)
            else:
                h = ""
            out[rel] = (h, st.st_mode, st.st_uid, st.st_gid, int(st.st_mtime))
    return out
ta, tb = walk(a), walk(b)
diff = {}
for p in sorted(set(ta) | set(tb)):
    x, y = ta.get(p), tb.get(p)
    if x == y:
        continue
    if x is None or y is None:
        why = "only in " + ("b" if x is None else "a")
    else:
        why = ",".join(k for k, u, v in zip(("content", "mode", "uid", "gid", "mtime"), x, y) if u != v)
    diff[p] = why
print("files that differ: %d of %d" % (len(diff), len(ta)))
for p, why in list(diff.items())[:60]:
    print("  %-70s %s" % (p, why))
EOF
