#!/bin/sh
# The arm64 init in an arm64 container, under qemu-user (issue 24, docs/release.md
# "## arm64"), as root:
#   1. binfmt_misc mounted and an aarch64 handler with F registered where they
#      are not (tests/release/binfmt_aarch64.sh), removed again at exit;
#   2. the arm64 base (debootstrap --arch=arm64 --variant=minbase trixie,
#      tests/image/make-base-image.sh, cached as CLI_SANDBOX_ARM64_BASE), the
#      static init cross-built (image/arm64/build.sh), the init image on both
#      (image/arm64/Containerfile.init);
#   3. in that image under podman, with the host script's capabilities: the
#      init's --version says arch aarch64; its managed --dry-run has the amd64
#      init's ruleset (same sha256, same rules); a managed start fails closed at
#      the firewall: qemu-user opens no NETLINK_NETFILTER socket, so the init
#      exits 71 with one error line (no nf_tables support, naming qemu-user), and
#      the command writes nothing; with the firewall skipped (interactive,
#      SKIP_EGRESS_FIREWALL=true) the start fails closed at PID 1's seccomp
#      filter, which qemu-user refuses, again 71 and nothing written (a control
#      run of the same command, user and mount without the init writes it).
# Each step's time under emulation is printed.
#
#   sh tests/release/arm64_image.sh
# Environment: CLI_SANDBOX_ARM64_BASE (localhost/cli-sandbox-arm64:base),
# CLI_SANDBOX_ARM64_IMAGE (localhost/cli-sandbox-arm64:init), CLI_SANDBOX_AMD64_INIT
# (the amd64 init whose dry run is compared; default build/release/cli-sandbox-init,
# tests/run-all.sh's), PODMAN_RUN_ARGS.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
# shellcheck disable=SC1091 # the shared TAP helper, and this test's binfmt_misc helper
. "$ROOT/tests/lib/tap.sh"
# shellcheck disable=SC1091
. "$HERE/binfmt_aarch64.sh"
BASE=${CLI_SANDBOX_ARM64_BASE:-localhost/cli-sandbox-arm64:base}
IMAGE=${CLI_SANDBOX_ARM64_IMAGE:-localhost/cli-sandbox-arm64:init}
AMD64_INIT=${CLI_SANDBOX_AMD64_INIT:-$ROOT/build/release/cli-sandbox-init}
RUNARGS=${PODMAN_RUN_ARGS:---runtime runc --ulimit nofile=1024:1024 --ulimit nproc=1000:1000}
# the capabilities host/cli-sandbox gives
CAPS="--cap-drop=ALL --cap-add=NET_ADMIN --cap-add=SETUID --cap-add=SETGID --cap-add=SETPCAP --security-opt=no-new-privileges"
URL=http://192.0.2.1:8080

[ "$(id -u)" -eq 0 ] || { echo "arm64_image.sh: run as root (binfmt_misc, podman)" >&2; exit 1; }
WORK=$(mktemp -d /tmp/cs-arm64-image.XXXXXX)
cleanup() {
	binfmt_aarch64_down
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

exec 3>&1  # the test's own output, for timed's lines while a command's is redirected
timed() {  # timed WHAT COMMAND...: runs it, prints how long it took
	t_what=$1
	shift
	t0=$(date +%s)
	"$@"
	t_rc=$?
	echo "# time: $t_what: $(($(date +%s) - t0)) s" >&3
	return $t_rc
}

arun() {  # arun PODMAN-RUN-ARGS... IMAGE [ARGS...]: one run of the arm64 image
	# shellcheck disable=SC2086 # option lists
	podman run --rm $RUNARGS --platform linux/arm64 --network none "$@"
}

# ------------------------------------------------------------------ 1. binfmt_misc
sh "$ROOT/tests/install-deps.sh" || { t_fail "the dependencies install (tests/install-deps.sh)"; t_done; exit 1; }
binfmt_aarch64_up >"$WORK/binfmt.log" 2>&1
case $? in
0) ;;
2)  # the control: the kernel has no binfmt_misc, or the machine disabled it
	t_skip "the arm64 init under qemu-user: $(tr '\n' ' ' <"$WORK/binfmt.log")"
	t_done
	exit 0 ;;
*)
	t_fail "an aarch64 handler in binfmt_misc" "$(cat "$WORK/binfmt.log")"
	t_done
	exit 1 ;;
esac
t_pass "an aarch64 handler in binfmt_misc: $(tr '\n' ';' <"$WORK/binfmt.log")"

# ------------------------------------------------------------------ 2. the images
if podman image exists "$BASE"; then
	echo "# $BASE reused"
elif ! timed "debootstrap of the arm64 base" env BASE_ARCH=arm64 sh "$ROOT/tests/image/make-base-image.sh" "$BASE"; then
	t_fail "the arm64 base $BASE (tests/image/make-base-image.sh with BASE_ARCH=arm64)"
	t_done
	exit 1
fi
ok "$BASE is an arm64 image" sh -c "[ \"\$(podman image inspect --format '{{.Architecture}}' '$BASE')\" = arm64 ]"
if ! timed "the init's cross build and unit tests (image/arm64/build.sh)" sh "$ROOT/image/arm64/build.sh" \
	>"$WORK/init-build.log" 2>&1; then
	t_fail "the arm64 init builds (image/arm64/build.sh)" "$(tail -20 "$WORK/init-build.log")"
	t_done
	exit 1
fi
t_pass "the arm64 init builds (image/arm64/build.sh)"
# shellcheck disable=SC2086 # option list
if ! timed "the init image's build" podman build --network host $RUNARGS --platform linux/arm64 \
	--build-arg BASE="$BASE" -f "$ROOT/image/arm64/Containerfile.init" -t "$IMAGE" "$ROOT/build/arm64" \
	>"$WORK/image-build.log" 2>&1; then
	t_fail "the arm64 init image builds" "$(tail -20 "$WORK/image-build.log")"
	t_done
	exit 1
fi
ok "$IMAGE is an arm64 image" sh -c "[ \"\$(podman image inspect --format '{{.Architecture}}' '$IMAGE')\" = arm64 ]"

# ------------------------------------------------------------------ 3. runs
# --version: the arm64 build, run in the container
# shellcheck disable=SC2086 # option list
timed "--version" arun $CAPS "$IMAGE" --version >"$WORK/version" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -qx "arch aarch64" "$WORK/version" && cmp -s "$WORK/version" "$ROOT/build/arm64/version"; then
	t_pass "--version in the container says arch aarch64 and is the build's ($(sed -n 2p "$WORK/version"))"
else
	t_fail "--version in the container names aarch64 (exit $rc)" "$(cat "$WORK/version")"
fi

# --dry-run: the same ruleset as the amd64 init's for the same configuration
# shellcheck disable=SC2086 # option list
timed "--dry-run" arun $CAPS -e CLI_SANDBOX_USER=1000:1000 -e TASK_AGENT_MODEL_BASE_URL=$URL \
	"$IMAGE" --dry-run >"$WORK/arm64.nft" 2>"$WORK/arm64.err"
rc=$?
digest() { sed -n 's/^# ruleset sha256: //p' "$1"; }
if [ $rc -ne 0 ] || ! grep -q "ip daddr 192.0.2.1 tcp dport 8080" "$WORK/arm64.nft"; then
	t_fail "the managed --dry-run in the container (exit $rc)" "$(cat "$WORK/arm64.err")"
elif [ ! -x "$AMD64_INIT" ]; then
	t_fail "the amd64 init's dry run to compare" "no $AMD64_INIT: build it (cmake --build build/release) or set CLI_SANDBOX_AMD64_INIT"
elif ! env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin CLI_SANDBOX_USER=1000:1000 TASK_AGENT_MODEL_BASE_URL=$URL \
	"$AMD64_INIT" --dry-run >"$WORK/amd64.nft" 2>&1; then
	t_fail "the amd64 init's dry run" "$(cat "$WORK/amd64.nft")"
elif [ -n "$(digest "$WORK/arm64.nft")" ] && [ "$(digest "$WORK/arm64.nft")" = "$(digest "$WORK/amd64.nft")" ] &&
	grep -v '^#' "$WORK/arm64.nft" >"$WORK/arm64.rules" && grep -v '^#' "$WORK/amd64.nft" >"$WORK/amd64.rules" &&
	cmp -s "$WORK/arm64.rules" "$WORK/amd64.rules"; then
	t_pass "the managed --dry-run in the container has the amd64 init's ruleset (sha256 $(digest "$WORK/arm64.nft"))"
else
	t_fail "the managed --dry-run in the container has the amd64 init's ruleset" \
		"arm64 $(digest "$WORK/arm64.nft"), amd64 $(digest "$WORK/amd64.nft")"
fi

# start WHAT PODMAN-ENV-ARGS...: one start whose command, as the sandbox user,
# writes /workspace/ran; stores its status, stderr and what it wrote
start() {
	s_what=$1
	shift
	s_ws=$WORK/ws-$s_what
	mkdir -p "$s_ws"
	chown 1000:1000 "$s_ws"
	# shellcheck disable=SC2086 # option list
	timed "a $s_what start" arun $CAPS "$@" -v "$s_ws:/workspace" "$IMAGE" \
		sh -c 'id -u >/workspace/ran' >"$WORK/$s_what.out" 2>"$WORK/$s_what.err"
	echo $? >"$WORK/$s_what.rc"
	sed 's/^/stderr: /' "$WORK/$s_what.err" | t_note
}
# fails_closed WHAT PATTERN: exit 71, one error line on stderr, matching PATTERN,
# and nothing written (warnings may come before it)
fails_closed() {
	f_rc=$(cat "$WORK/$1.rc")
	f_errors=$(grep -c '^cli-sandbox-init: error: ' "$WORK/$1.err")
	f_desc="the $1 start fails closed under qemu-user: 71, one error line naming $2, the command not run"
	if [ "$f_rc" = 71 ] && [ "$f_errors" -eq 1 ] && grep -q "^cli-sandbox-init: error: .*$2" "$WORK/$1.err" &&
		[ ! -e "$WORK/ws-$1/ran" ]; then
		t_pass "$f_desc"
	else
		t_fail "$f_desc" "exit $f_rc, $f_errors error line(s), /workspace/ran $([ -e "$WORK/ws-$1/ran" ] && echo written || echo absent)"
	fi
}

# The control: the same command, as the same user, without the init, writes the
# file; so a start that leaves none did not run it.
mkdir -p "$WORK/ws-control"
chown 1000:1000 "$WORK/ws-control"
# shellcheck disable=SC2086 # option list
arun $CAPS --user 1000:1000 --entrypoint sh -v "$WORK/ws-control:/workspace" "$IMAGE" \
	-c 'id -u >/workspace/ran' >/dev/null 2>&1
ok "the control: the command without the init writes /workspace/ran as 1000" grep -qx 1000 "$WORK/ws-control/ran"

# managed: qemu-user refuses socket(AF_NETLINK, NETLINK_NETFILTER) with
# EPROTONOSUPPORT (it passes on only the netlink families whose messages it
# converts), so the firewall, the first stage, cannot be programmed
start managed -e TASK_AGENT_MODEL_BASE_URL=$URL
fails_closed managed "no nf_tables support (Protocol not supported).*qemu-user"
# the firewall skipped, to reach the next stages: the privilege drop passes and
# PID 1's own seccomp filter is next, which qemu-user refuses (every seccomp
# prctl gets EINVAL, so the init cannot even read the mode)
start nofirewall -e CLI_SANDBOX_EGRESS_PROFILE=interactive -e SKIP_EGRESS_FIREWALL=true
fails_closed nofirewall "PID 1: prctl(PR_GET_SECCOMP) failed with EINVAL.*qemu-user"

t_done
