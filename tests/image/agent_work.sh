#!/bin/sh
# Agent work out of the box (issue 16): each real CLI, in the managed profile
# and started with no flags of its own, runs the shell command its model asks
# for.  The model is tests/gateway/mock_gateway.py in scripted mode: the first
# turn is a shell tool call in the CLI's own wire format (claude's Bash and
# pi's bash as Anthropic tool_use, codex 0.171's code-mode exec as a Responses
# custom tool call over WebSocket), the second quotes the tool's output.
#
# Engines and seccomp: podman (its default seccomp profile) in network
# namespaces, and a private dockerd (tests/dockerd.sh; Docker's built-in
# default profile) on an --internal network.  Capability sets: the minimal
# one (NET_ADMIN, SETUID, SETGID, no-new-privileges) and Docker's default
# set plus NET_ADMIN.
#
# Every run is judged by what the command did, never by the CLI's status:
#   - the file it wrote in /workspace holds uid 1000;
#   - the gateway's log holds the tool result the CLI sent back (so the
#     output reached the model), with uid=1000 in it;
#   - its try at other egress (a listening peer, and a DNS name that resolves
#     without the firewall) failed at once (refused, well under 2 s);
#   - codex: the init's start line names the sandbox the probe chose; where
#     that is workspace-write, the command could not write outside
#     /workspace nor reach even the gateway (codex's own sandbox confines it).
#
# usage: sh tests/image/agent_work.sh      (root; after tests/image/run.sh built the image)
# environment: CLI_SANDBOX_TEST_IMAGE (default localhost/cli-sandbox:test),
#   PODMAN_RUN_ARGS (as run.sh), SKIP_DOCKER=1 / SKIP_PODMAN=1 to leave one half out.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$ROOT/tests/netns/topology.sh"
. "$ROOT/tests/dockerd.sh"
# shellcheck source=tests/lib/controls.sh
. "$ROOT/tests/lib/controls.sh"
IMAGE=${CLI_SANDBOX_TEST_IMAGE:-localhost/cli-sandbox:test}
PYIMAGE=${CLI_SANDBOX_PYTHON_IMAGE:-localhost/cli-sandbox-python:test}
RUNARGS=${PODMAN_RUN_ARGS:---runtime runc --ulimit nofile=1024:1024 --ulimit nproc=1000:1000}
LIMITS="--ulimit nofile=1024:1024 --ulimit nproc=1000:1000"
RUN_TIMEOUT=180
WORK=$(mktemp -d /tmp/cli-sandbox-agent-work.XXXXXX)
chmod 755 "$WORK"
DNET=""

cleanup() {
	topo_down
	if [ -n "$DOCKERD_PID" ]; then
		dockerd_stop
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
note() { sed 's/^/#   /'; }
bail() { echo "Bail out! $*"; exit 1; }

[ "$(id -u)" -eq 0 ] || bail "run as root"
podman image exists "$IMAGE" || bail "no image $IMAGE; run tests/image/run.sh first"

# tool_command GATEWAY-IP EGRESS-IP:PORT DNS-NAME: what the model asks to run.
# Times are in ms; "rc" is the shell's status of each try.
tool_command() {
	egress_host=${2%:*}
	egress_port=${2##*:}
	# shellcheck disable=SC2016 # expanded by the agent's shell
	printf '%s' 'id -u > /workspace/agent-proof.txt; echo "uid=$(id -u)";
ms() { echo $(( $(date +%s%N) / 1000000 )); };
t=$(ms); timeout 10 bash -c "echo > /dev/tcp/'"$egress_host/$egress_port"'" 2>/dev/null; echo "egress rc=$? ms=$(( $(ms) - t ))";
t=$(ms); timeout 10 getent hosts '"$3"' >/dev/null 2>&1; echo "dns rc=$? ms=$(( $(ms) - t ))";
timeout 10 bash -c "echo > /dev/tcp/'"$1"'/8080" 2>/dev/null; echo "gateway rc=$?";
touch /home/node/.agent-outside 2>/dev/null; echo "outside-write rc=$?"'
}

MINIMAL="--cap-drop ALL --cap-add NET_ADMIN,SETUID,SETGID --security-opt no-new-privileges"
PODMAN_DOCKER_SET="--cap-drop ALL --cap-add CHOWN,DAC_OVERRIDE,FOWNER,FSETID,KILL,SETGID,SETUID,SETPCAP,NET_BIND_SERVICE,NET_RAW,SYS_CHROOT,MKNOD,AUDIT_WRITE,SETFCAP,NET_ADMIN"
# Debian 12's docker client takes one capability per --cap-add.
DOCKER_MINIMAL="--cap-drop ALL --cap-add NET_ADMIN --cap-add SETUID --cap-add SETGID --security-opt no-new-privileges"
PROMPT="Run the checks you are told to run."
cli_args() {  # cli_args CLI: the CLI's own non-interactive form, nothing more
	case $1 in
	claude) echo "claude -p" ;;
	codex) echo "codex exec --skip-git-repo-check" ;;
	pi) echo "pi -p" ;;
	gemini) echo "gemini -p" ;;
	opencode) echo "opencode run" ;;
	esac
}
# The CLIs to run (each must be in IMAGE): the all-in-one image's three by
# default; CLI_SANDBOX_TEST_CLIS=gemini with the gemini image, and so on.
CLIS=${CLI_SANDBOX_TEST_CLIS:-claude codex pi}
has_cli() { case " $CLIS " in *" $1 "*) return 0 ;; esac; return 1; }

# field FILE NAME KEY: a number from a "NAME KEY=N" part of the tool result
field() { sed -n "s/.*$2 [^\\\\]*$3=\\([0-9]*\\).*/\\1/p" "$1" | head -1; }

# judge LABEL CLI DIR: the assertions on one run; DIR holds ws/, gw.log, err
judge() {
	label=$1
	cli=$2
	d=$3
	res="$d/result"
	grep '^TOOL_RESULT ' "$d/gw.log" | head -1 >"$res"
	ok "$label: the model's command wrote /workspace/agent-proof.txt as uid 1000" \
		[ "$(cat "$d/ws/agent-proof.txt" 2>/dev/null)" = 1000 ]
	ok "$label: the gateway sent a shell tool call" grep -q '^TOOL_CALL ' "$d/gw.log"
	ok "$label: the tool's output came back to the model (uid=1000 in the request)" \
		grep -q 'uid=1000' "$res"
	# "Fast": a refusal comes at once, where a silent drop costs glibc's 5 s
	# resolver timeout (DNS) or runs into timeout 10 (rc 124).  The times
	# include starting bash or getent, so 4 s leaves a loaded machine its
	# margin and still tells a refusal from a drop.
	er=$(field "$res" egress rc)
	em=$(field "$res" egress ms)
	ok "$label: other egress failed fast (rc=$er, ${em}ms)" \
		sh -c "[ -n '$er' ] && [ '$er' != 0 ] && [ '$er' != 124 ] && [ '${em:-9999}' -lt 4000 ]"
	dr=$(field "$res" dns rc)
	dm=$(field "$res" dns ms)
	ok "$label: DNS failed fast (rc=$dr, ${dm}ms)" \
		sh -c "[ -n '$dr' ] && [ '$dr' != 0 ] && [ '$dr' != 124 ] && [ '${dm:-9999}' -lt 4000 ]"
	ok "$label: the init said what it set for autonomy" grep -q 'autonomy: ' "$d/err"
	if [ "$cli" = codex ]; then
		if grep -q 'codex sandbox: workspace-write' "$d/err"; then
			gr=$(field "$res" gateway rc)
			wr=$(field "$res" outside-write rc)
			ok "$label: codex's workspace-write sandbox confines: no network even to the gateway (rc=$gr)" \
				sh -c "[ -n '$gr' ] && [ '$gr' != 0 ]"
			ok "$label: codex's workspace-write sandbox confines: read-only outside /workspace (rc=$wr)" \
				sh -c "[ -n '$wr' ] && [ '$wr' != 0 ]"
		fi
	fi
}

show() {  # show DIR: the evidence, as TAP comments
	grep -E 'firewall up|autonomy:|codex sandbox:|rror' "$1/err" | head -8 | note
	tail -3 "$1/out" | note
	grep -E '^(TOOL_|POST|GET|WS)' "$1/gw.log" | cut -c1-300 | note
}

# ----------------------------------------------------------------- podman
[ "${SKIP_PODMAN:-0}" = 1 ] && echo "# SKIP_PODMAN=1: the podman half is left out"
[ "${SKIP_PODMAN:-0}" = 1 ] || {
topo_up || bail "cannot build the test network namespaces"
PODMAN_TOOL=$(tool_command 192.0.2.1 198.51.100.2:8080 peer.test)
topo_spawn "$NS_GW" python3 "$ROOT/tests/gateway/mock_gateway.py" --listen 192.0.2.1 --port 8080 \
	--tool-command "$PODMAN_TOOL" --log "$WORK/gateway.log" --max-seconds 1800 >/dev/null 2>&1
topo_spawn "$NS_GW" python3 "$ROOT/tests/netns/netservers.py" --max-seconds 1800 --dns 192.0.2.1:53
topo_spawn "$NS_OTHER" python3 "$ROOT/tests/netns/netservers.py" --max-seconds 1800 --tcp 198.51.100.2:8080
topo_wait_tcp "$NS_GW" 192.0.2.1 8080 && topo_wait_tcp "$NS_OTHER" 198.51.100.2 8080 ||
	bail "the test servers did not start"


# Baseline without the firewall: the same egress tries succeed, so a refusal
# below is the firewall's doing, not a broken topology.
# shellcheck disable=SC2086
timeout 60 podman run --rm $RUNARGS --network "ns:/run/netns/$NS_SBX" --dns 192.0.2.1 --cap-drop ALL \
	--entrypoint /bin/bash "$IMAGE" -c 'timeout 5 bash -c "echo > /dev/tcp/198.51.100.2/8080" && echo tcp-ok;
	timeout 5 getent hosts peer.test >/dev/null && echo dns-ok' </dev/null >"$WORK/baseline" 2>&1
ok "podman baseline without the firewall: 198.51.100.2:8080 answers" grep -qx tcp-ok "$WORK/baseline"
ok "podman baseline without the firewall: peer.test resolves" grep -qx dns-ok "$WORK/baseline"

# The init's seccomp filter denies user namespaces unless the operator opts
# in; the podman half opts in, so codex's probe meets podman's default
# seccomp, which allows them (tests/caps/codex_probe.sh covers the default).
PODMAN_USERNS="-e CLI_SANDBOX_ALLOW_USERNS=true"
podman_run() {  # podman_run LABEL CLI CAPS
	d="$WORK/$1"
	mkdir -p "$d/ws"
	chown 1000:1000 "$d/ws"
	: >"$WORK/gateway.log"
	# shellcheck disable=SC2086,SC2046 # option lists split on purpose
	timeout "$RUN_TIMEOUT" podman run --rm $RUNARGS --network "ns:/run/netns/$NS_SBX" --dns 192.0.2.1 $3 $PODMAN_USERNS ${ENGINE_EXTRA:-} \
		-v "$d/ws:/workspace" -e TASK_AGENT_MODEL_BASE_URL=http://192.0.2.1:8080 \
		-e ANTHROPIC_API_KEY=sk-ant-test-not-a-key -e OPENAI_API_KEY=sk-test-not-a-key -e GEMINI_API_KEY=gm-test-not-a-key \
		"$IMAGE" $(cli_args "$2") "$PROMPT" </dev/null >"$d/out" 2>"$d/err"
	echo "# $1: exit $? (not judged)"
	cp "$WORK/gateway.log" "$d/gw.log"
	show "$d"
	[ -n "${ENGINE_EXTRA:-}" ] || judge "$1" "$2" "$d"
}

for cli in $CLIS; do
	podman_run "podman-minimal-$cli" "$cli" "$MINIMAL"
	podman_run "podman-dockerset-$cli" "$cli" "$PODMAN_DOCKER_SET"
done
if has_cli codex; then
# The control: uid 1000 makes codex's namespaces on this host without the
# init.  Where the host refuses them, the probe fails under podman too: the
# cases that need it passing are skips with that reason, the fallback is checked.
if userns_works 1000; then USERNS=1; else USERNS=0; fi
if [ "$USERNS" = 1 ]; then
	ok "podman (default seccomp, CLI_SANDBOX_ALLOW_USERNS=true): the probe chose workspace-write for codex" \
		grep -q 'codex sandbox: workspace-write (user-namespace probe passed' "$WORK/podman-minimal-codex/err"
else
	t_skip "podman (CLI_SANDBOX_ALLOW_USERNS=true): the probe chose workspace-write for codex: $C_WHY"
	ok "podman (CLI_SANDBOX_ALLOW_USERNS=true), no user namespaces here: the probe failed, danger-full-access" \
		grep -q 'codex sandbox: danger-full-access (user-namespace probe failed' "$WORK/podman-minimal-codex/err"
fi
# Interactive: codex keeps its own approvals and, the probe passing, its own
# default sandbox (read-only for exec): the command still runs.
ENGINE_EXTRA="-e CLI_SANDBOX_EGRESS_PROFILE=interactive"
podman_run podman-interactive-codex codex "$MINIMAL"
ENGINE_EXTRA=""
if [ "$USERNS" = 1 ]; then
	ok "podman interactive: codex keeps its own default sandbox (probe passed)" \
		grep -q "codex sandbox: codex's own default (user-namespace probe passed" "$WORK/podman-interactive-codex/err"
else
	t_skip "podman interactive: codex keeps its own default sandbox (probe passed): $C_WHY"
	ok "podman interactive, no user namespaces here: danger-full-access (probe failed)" \
		grep -q "codex sandbox: danger-full-access (user-namespace probe failed" "$WORK/podman-interactive-codex/err"
fi
ok "podman interactive: no approval policy set for codex" \
	sh -c "! grep -q 'approval_policy' '$WORK/podman-interactive-codex/err'"
ok "podman interactive: the command ran and its output reached the model" \
	grep -q '^TOOL_RESULT .*uid=1000' "$WORK/podman-interactive-codex/gw.log"
fi
topo_down
}

# ----------------------------------------------------------------- dockerd
if [ "${SKIP_DOCKER:-0}" = 1 ]; then
	echo "# SKIP_DOCKER=1: the dockerd half is left out"
	t_done
	exit $?
fi
dockerd_start || bail "the private dockerd did not start"
sh "$ROOT/tests/gateway/make-python-image.sh" "$PYIMAGE" || bail "cannot build $PYIMAGE"
dockerd_load "$PYIMAGE" && dockerd_load "$IMAGE" || bail "cannot load the images into dockerd"
DNET="cs-agent-$$"
# The docker network's addresses: a /28 of 198.51.100.0/24 that no other run
# here uses can be chosen (CLI_SANDBOX_TEST_DOCKER_NET=A.B.C.D/28 with the
# gateway, peer, sandbox and baseline at .2 to .5 of it).
case ${CLI_SANDBOX_TEST_DOCKER_NET:-} in
'') DSUBNET=198.51.100.0/24 DGW=198.51.100.10 DPEER=198.51.100.11 DSBX=198.51.100.20 DBASE=198.51.100.21 ;;
*)
	DSUBNET=$CLI_SANDBOX_TEST_DOCKER_NET
	_b=${DSUBNET%/*}
	_p=${_b%.*}
	_o=${_b##*.}
	DGW=$_p.$((_o + 2)) DPEER=$_p.$((_o + 3)) DSBX=$_p.$((_o + 4)) DBASE=$_p.$((_o + 5))
	;;
esac
# Internal: no route out, no NAT; the .1 is the bridge on this machine and is
# never sent to.  198.51.100.0/24, not 192.0.2.0/24: the bridge lives in this
# machine's namespace, and a test machine's own interface may be on 192.0.2.0/24
# (as tests/image/docker.sh notes).
"$DOCKER" network create --internal --subnet "$DSUBNET" "$DNET" >/dev/null || bail "cannot create $DNET"
mkdir -p "$WORK/dgw"
chmod 777 "$WORK/dgw"
DOCKER_TOOL=$(tool_command $DGW $DPEER:8080 "cs-peer-$$")
"$DOCKER" run -d --name "cs-gw-$$" --network "$DNET" --ip $DGW -v "$ROOT/tests/gateway:/gw:ro" \
	-v "$WORK/dgw:/log" "$PYIMAGE" python3 /gw/mock_gateway.py --listen $DGW --port 8080 \
	--tool-command "$DOCKER_TOOL" --log /log/gateway.log --max-seconds 1800 >/dev/null || bail "gateway container"
"$DOCKER" run -d --name "cs-peer-$$" --network "$DNET" --ip $DPEER "$PYIMAGE" \
	timeout 1800 python3 -m http.server --bind $DPEER 8080 >/dev/null || bail "peer container"
i=0
until "$DOCKER" logs "cs-gw-$$" 2>/dev/null | grep -q listening || [ $i -ge 60 ]; do
	sleep 0.5
	i=$((i + 1))
done
# Baseline: without the firewall the peer answers and its name resolves.
timeout 60 "$DOCKER" run --rm $LIMITS --network "$DNET" --ip $DBASE --cap-drop ALL --entrypoint /bin/bash "$IMAGE" \
	-c "timeout 5 bash -c 'echo > /dev/tcp/$DPEER/8080' && echo tcp-ok; timeout 5 getent hosts cs-peer-$$ >/dev/null && echo dns-ok" \
	</dev/null >"$WORK/dbaseline" 2>&1
ok "dockerd baseline without the firewall: $DPEER:8080 answers" grep -qx tcp-ok "$WORK/dbaseline"
ok "dockerd baseline without the firewall: cs-peer-$$ resolves (Docker's DNS)" grep -qx dns-ok "$WORK/dbaseline"

docker_run() {  # docker_run LABEL CLI CAPS [CLI-ARGS...]
	d="$WORK/$1"
	mkdir -p "$d/ws"
	chown 1000:1000 "$d/ws"
	: >"$WORK/dgw/gateway.log"
	# shellcheck disable=SC2086,SC2046 # option lists split on purpose
	timeout "$RUN_TIMEOUT" "$DOCKER" run --rm --name "cs-sbx-$$" $LIMITS --network "$DNET" --ip $DSBX $3 ${ENGINE_EXTRA:-} \
		-v "$d/ws:/workspace" -e TASK_AGENT_MODEL_BASE_URL=http://$DGW:8080 \
		-e ANTHROPIC_API_KEY=sk-ant-test-not-a-key -e OPENAI_API_KEY=sk-test-not-a-key -e GEMINI_API_KEY=gm-test-not-a-key \
		"$IMAGE" $(cli_args "$2") ${4:-} "$PROMPT" </dev/null >"$d/out" 2>"$d/err"
	echo "# $1: exit $? (not judged)"
	"$DOCKER" rm -f "cs-sbx-$$" >/dev/null 2>&1
	cp "$WORK/dgw/gateway.log" "$d/gw.log"
	show "$d"
	[ -n "${4:-}${ENGINE_EXTRA:-}" ] || judge "$1" "$2" "$d"
}

for cli in $CLIS; do
	docker_run "docker-minimal-$cli" "$cli" "$DOCKER_MINIMAL"
	docker_run "docker-default-$cli" "$cli" "--cap-add NET_ADMIN"
done
if has_cli codex; then
for c in minimal default; do
	ok "dockerd ($c caps, Docker's default seccomp): codex got danger-full-access, the probe's failure recorded" \
		grep -q 'codex sandbox: danger-full-access (user-namespace probe failed: unshare' "$WORK/docker-$c-codex/err"
done
# Interactive under Docker's profile: the same probe fails, so codex's
# nested sandbox is off and the command runs.
ENGINE_EXTRA="-e CLI_SANDBOX_EGRESS_PROFILE=interactive"
docker_run docker-interactive-codex codex "$DOCKER_MINIMAL"
ENGINE_EXTRA=""
ok "dockerd interactive: codex got danger-full-access from the probe" \
	grep -q 'codex sandbox: danger-full-access (user-namespace probe failed' "$WORK/docker-interactive-codex/err"
ok "dockerd interactive: the command ran (file written as uid 1000)" \
	[ "$(cat "$WORK/docker-interactive-codex/ws/agent-proof.txt" 2>/dev/null)" = 1000 ]

# Control: why the probe matters.  The operator's own -s workspace-write
# needs user namespaces, which the init's filter denies by default: the start
# stops (78) with the fix, instead of a codex whose sandbox runs nothing
# (tests/image/codex_sandbox.sh has the rest).
docker_run docker-control-codex codex "$DOCKER_MINIMAL" "-s workspace-write"
ok "control: the operator's -s workspace-write stops the start with the fix" \
	grep -q "error: codex: the operator's -s asks for codex's workspace-write sandbox.*CLI_SANDBOX_ALLOW_USERNS=true" "$WORK/docker-control-codex/err"
ok "control: the model was never called, no file written" \
	sh -c "[ ! -s '$WORK/docker-control-codex/gw.log' ] && [ ! -e '$WORK/docker-control-codex/ws/agent-proof.txt' ]"
fi
t_done
