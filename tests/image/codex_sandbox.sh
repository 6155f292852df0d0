#!/bin/sh
# codex's sandbox, chosen by the operator (issue 20, item 8): every codex
# sandbox but danger-full-access runs its commands through bubblewrap, which
# needs user namespaces, and the init's seccomp filter denies them unless
# CLI_SANDBOX_ALLOW_USERNS=true.  So, with the real codex in the image and the
# mock gateway in codex's own wire format (tests/gateway/mock_gateway.py,
# scripted: a shell tool call, then a reply quoting its output):
#   - podman, default filter: -s workspace-write and --approve-for-me stop
#     with 78 and one line naming the option and the fix; the model is never
#     called (nothing in the gateway's log) and /workspace stays empty;
#   - podman (its default seccomp allows unshare), CLI_SANDBOX_ALLOW_USERNS=true:
#     -s workspace-write runs the command inside codex's sandbox: it writes
#     /workspace as uid 1000 and reaches no network, not even the gateway,
#     and the start line names the operator's sandbox and the passed probe;
#   - the private dockerd (Docker's default seccomp denies unshare),
#     CLI_SANDBOX_ALLOW_USERNS=true: 78 with the probe's reason, the model
#     never called.
#
# usage: sh tests/image/codex_sandbox.sh   (root; the image holds codex)
# environment: CLI_SANDBOX_TEST_IMAGE (default localhost/cli-sandbox:codex),
#   PODMAN_RUN_ARGS, SKIP_DOCKER=1.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$ROOT/tests/netns/topology.sh"
. "$ROOT/tests/dockerd.sh"
# shellcheck source=tests/lib/controls.sh
. "$ROOT/tests/lib/controls.sh"
IMAGE=${CLI_SANDBOX_TEST_IMAGE:-localhost/cli-sandbox:codex}
PYIMAGE=${CLI_SANDBOX_PYTHON_IMAGE:-localhost/cli-sandbox-python:test}
RUNARGS=${PODMAN_RUN_ARGS:---runtime runc --ulimit nofile=1024:1024 --ulimit nproc=1000:1000}
LIMITS="--ulimit nofile=1024:1024 --ulimit nproc=1000:1000"
# A /28 of the engines' range for this test's docker network: .226 the
# gateway, .227 the sandbox (the .225 is the bridge, never sent to).
SUBNET=198.51.100.224/28
GW=198.51.100.226
SBX=198.51.100.227
WORK=$(mktemp -d /tmp/cli-sandbox-codex-sandbox.XXXXXX)
chmod 755 "$WORK"
DNET=""
cleanup() {
	topo_down
	[ -z "$DOCKERD_PID" ] || dockerd_stop
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
note() { sed 's/^/#   /'; }
bail() { echo "Bail out! $*"; exit 1; }
[ "$(id -u)" -eq 0 ] || bail "run as root"
podman image exists "$IMAGE" || bail "no image $IMAGE"

MINIMAL="--cap-drop ALL --cap-add NET_ADMIN,SETUID,SETGID --security-opt no-new-privileges"
DOCKER_MINIMAL="--cap-drop ALL --cap-add NET_ADMIN --cap-add SETUID --cap-add SETGID --security-opt no-new-privileges"
PROMPT="Run the checks you are told to run."
# shellcheck disable=SC2016 # expanded by the agent's shell
tool() { printf '%s' 'id -u > /workspace/agent-proof.txt; echo "uid=$(id -u)";
timeout 5 bash -c "echo > /dev/tcp/'"$1"'/8080" 2>/dev/null; echo "gateway rc=$?"'; }

# judge_refused LABEL OPTION-TEXT [REASON]: 78, one line, the model never called
judge_refused() {
	d="$WORK/$1"
	ok "$1: exit 78 ($(cat "$d/rc"))" [ "$(cat "$d/rc")" = 78 ]
	n=$(grep -c 'error: ' "$d/err")
	ok "$1: one error line ($n), naming $2 and the fix" \
		sh -c '[ "$1" = 1 ] && grep -qF -e "$2" "$4" && grep -qF -e "$3" "$4"' - "$n" "error: codex: $2" \
		"${3:-CLI_SANDBOX_ALLOW_USERNS=true under an engine whose seccomp profile allows unshare}" "$d/err"
	ok "$1: the model was never called (the gateway's log is empty)" [ ! -s "$d/gw.log" ]
	ok "$1: nothing written in /workspace" [ -z "$(ls -A "$d/ws")" ]
	grep -E 'error|codex sandbox' "$d/err" | cut -c1-400 | note
}

# ----------------------------------------------------------------- podman
topo_up || bail "cannot build the test network namespaces"
topo_spawn "$NS_GW" python3 "$ROOT/tests/gateway/mock_gateway.py" --listen 192.0.2.1 --port 8080 \
	--tool-command "$(tool 192.0.2.1)" --log "$WORK/gateway.log" --max-seconds 900 >/dev/null 2>&1
topo_wait_tcp "$NS_GW" 192.0.2.1 8080 || bail "the mock gateway did not start"
podman_run() {  # podman_run LABEL ENV-ARGS CODEX-ARGS
	d="$WORK/$1"
	mkdir -p "$d/ws"
	chown 1000:1000 "$d/ws"
	: >"$WORK/gateway.log"
	# shellcheck disable=SC2086 # option lists split on purpose
	timeout 180 podman run --rm $RUNARGS --network "ns:/run/netns/$NS_SBX" --dns 192.0.2.1 $MINIMAL $2 \
		-v "$d/ws:/workspace" -e TASK_AGENT_MODEL_BASE_URL=http://192.0.2.1:8080 -e OPENAI_API_KEY=sk-test-not-a-key \
		"$IMAGE" codex exec --skip-git-repo-check $3 "$PROMPT" </dev/null >"$d/out" 2>"$d/err"
	echo $? >"$d/rc"
	cp "$WORK/gateway.log" "$d/gw.log"
}
podman_run podman-s "" "-s workspace-write"
judge_refused podman-s "the operator's -s asks for codex's workspace-write sandbox"
podman_run podman-afm "" "--approve-for-me"
judge_refused podman-afm "the operator's --approve-for-me asks for codex's workspace-write sandbox"

podman_run podman-s-userns "-e CLI_SANDBOX_ALLOW_USERNS=true" "-s workspace-write"
d="$WORK/podman-s-userns"
grep -E 'autonomy|codex sandbox|error' "$d/err" | cut -c1-300 | note
grep -E '^(TOOL_|POST|WS)' "$d/gw.log" | cut -c1-300 | note
# The control: uid 1000 makes codex's namespaces on this host without the
# init.  Where the host refuses them, podman's seccomp cannot help: the
# opt-in is refused as under dockerd (78), and the cases below are skips.
if ! userns_works 1000; then
	t_skip "podman, CLI_SANDBOX_ALLOW_USERNS=true: codex runs in its workspace-write sandbox: $C_WHY"
	judge_refused podman-s-userns "the operator's -s asks for codex's workspace-write sandbox" \
		"with CLI_SANDBOX_ALLOW_USERNS=true they still cannot be made here (unshare"
else
ok "podman, CLI_SANDBOX_ALLOW_USERNS=true: the start line names the operator's sandbox and the passed probe" \
	grep -q "codex sandbox: workspace-write, the operator's -s (user-namespace probe passed" "$d/err"
ok "podman, CLI_SANDBOX_ALLOW_USERNS=true: the command wrote /workspace as uid 1000" \
	[ "$(cat "$d/ws/agent-proof.txt" 2>/dev/null)" = 1000 ]
ok "podman, CLI_SANDBOX_ALLOW_USERNS=true: its output reached the model" grep -q '^TOOL_RESULT .*uid=1000' "$d/gw.log"
ok "podman, CLI_SANDBOX_ALLOW_USERNS=true: inside codex's sandbox: no network, not even the gateway" \
	sh -c "grep '^TOOL_RESULT' '$d/gw.log' | grep -q 'gateway rc=[1-9]'"
fi
topo_down

# ----------------------------------------------------------------- dockerd
if [ "${SKIP_DOCKER:-0}" = 1 ]; then
	echo "# SKIP_DOCKER=1: the dockerd half is left out"
	t_done
	exit $?
fi
dockerd_start || bail "the private dockerd did not start"
sh "$ROOT/tests/gateway/make-python-image.sh" "$PYIMAGE" >/dev/null || bail "cannot build $PYIMAGE"
{ dockerd_load "$PYIMAGE" && dockerd_load "$IMAGE"; } || bail "cannot load the images into dockerd"
DNET="cs-clis-$$"
"$DOCKER" network create --internal --subnet "$SUBNET" "$DNET" >/dev/null || bail "cannot create $DNET"
mkdir -p "$WORK/dgw"
chmod 777 "$WORK/dgw"
"$DOCKER" run -d --name "cs-clis-gw-$$" --network "$DNET" --ip "$GW" -v "$ROOT/tests/gateway:/gw:ro" \
	-v "$WORK/dgw:/log" "$PYIMAGE" python3 /gw/mock_gateway.py --listen "$GW" --port 8080 \
	--tool-command "$(tool "$GW")" --log /log/gateway.log --max-seconds 900 >/dev/null || bail "gateway container"
i=0
until "$DOCKER" logs "cs-clis-gw-$$" 2>/dev/null | grep -q listening || [ $i -ge 60 ]; do
	sleep 0.5
	i=$((i + 1))
done
d="$WORK/docker-s-userns"
mkdir -p "$d/ws"
chown 1000:1000 "$d/ws"
: >"$WORK/dgw/gateway.log"
# shellcheck disable=SC2086
timeout 180 "$DOCKER" run --rm $LIMITS --network "$DNET" --ip "$SBX" $DOCKER_MINIMAL \
	-e CLI_SANDBOX_ALLOW_USERNS=true -v "$d/ws:/workspace" -e TASK_AGENT_MODEL_BASE_URL="http://$GW:8080" \
	-e OPENAI_API_KEY=sk-test-not-a-key "$IMAGE" codex exec --skip-git-repo-check -s workspace-write "$PROMPT" \
	</dev/null >"$d/out" 2>"$d/err"
echo $? >"$d/rc"
cp "$WORK/dgw/gateway.log" "$d/gw.log"
judge_refused docker-s-userns "the operator's -s asks for codex's workspace-write sandbox" \
	"with CLI_SANDBOX_ALLOW_USERNS=true they still cannot be made here (unshare"
t_done
