#!/bin/sh
# deploy/kubernetes/ on a real engine: `podman kube play` runs the Job's pod
# template as a Pod (kube play takes no Job), the firewall init container and
# then the restricted agent container, in a test network namespace wired to
# the mock gateway (tests/netns/topology.sh: 192.0.2.0/24, 198.51.100.0/24,
# 2001:db8:1::/64 only).
#
#   1. without the init container, the agent container's self-check fails
#      closed (71) and the command never runs;
#   2. with it: the init container exits 0 after the start line with the
#      dry-run's digest; the agent container holds nothing (CapEff 0 and every
#      other set empty, uid 1000, no_new_privs, seccomp on), its self-check
#      passes, and each real CLI (claude, codex, pi) answers from the gateway
#      with a read-only root filesystem, HOME and /tmp on emptyDirs;
#   3. an init container without NET_ADMIN stops with 71 and the agent container never
#      starts; an agent container given a capability after all stops with 78.
#
# How the pod gets the test namespace: podman 4.3 pods cannot join a
# namespace path, so podman runs inside it (nsenter --net, which keeps the
# mounts that `ip netns exec` would replace) and the pod uses hostNetwork.
# Rlimits and the runtime come from a containers.conf (CONTAINERS_CONF), the
# only place kube play reads them from; its pause container needs catatonit.
#
# usage: sh tests/image/kube.sh          (root; tests/image/run.sh calls it)
# environment:
#   CLI_SANDBOX_TEST_IMAGE  the image to play (default localhost/cli-sandbox:test), built
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$ROOT/tests/netns/topology.sh"
IMAGE=${CLI_SANDBOX_TEST_IMAGE:-localhost/cli-sandbox:test}
URL=http://192.0.2.1:8080
REPLY="pong from the kube play gateway"
TAG="cli-sandbox-kube-$$"
WORK=$(mktemp -d /tmp/cli-sandbox-kube-test.XXXXXX)
chmod 755 "$WORK"

# shellcheck source=tests/image/kube_common.sh
. "$HERE/kube_common.sh"
trap kube_cleanup EXIT
trap 'exit 130' INT TERM
kube_preflight

topo_up || bail "cannot build the test network namespaces"
topo_spawn "$NS_GW" python3 "$ROOT/tests/gateway/mock_gateway.py" --listen 192.0.2.1 --port 8080 \
	--reply "$REPLY" --log "$WORK/gateway.log" --max-seconds 900 >"$WORK/gw.out" 2>"$WORK/gw.err"
topo_spawn "$NS_GW" python3 "$ROOT/tests/netns/netservers.py" --max-seconds 900 \
	--tcp 192.0.2.1:8081 --tcp "[2001:db8:1::1]:443" --tcp 169.254.169.254:80 \
	--dns 192.0.2.1:53
if ! topo_wait_tcp "$NS_GW" 192.0.2.1 8080 || ! topo_wait_tcp "$NS_GW" 192.0.2.1 8081; then
	bail "the test servers did not start"
fi

# play NAME RENDER-OPTION...: renders the Job's pod, plays it in $NS_SBX with
# a fresh workspace volume (seeded as a controller would), waits (bounded)
# for the agent container to end; leaves NAME.{fw,agent}.{log,rc} and the
# workspace under $WORK/NAME.
play() {
	name=$1
	shift
	pod="$TAG-$name"
	vol="$TAG-$name-ws"
	mkdir -p "$WORK/$name"
	podman volume create "$vol" >/dev/null || return 1
	VOLUMES="$VOLUMES $vol"
	ws=$(podman volume inspect --format '{{.Mountpoint}}' "$vol")
	echo "a repository the controller put here" >"$ws/README"
	chown -R 1000:1000 "$ws"
	$PY "$TOOL" pod "$ROOT/deploy/kubernetes" "$WORK/$name" --image "$IMAGE" --url "$URL" \
		--name "$pod" --volume "$vol" "$@" || return 1
	: >"$WORK/gateway.log"
	PODS="$PODS $pod"
	# A failed init container fails the play: the agent container never starts.
	CONTAINERS_CONF="$WORK/containers.conf" timeout 120 nsenter --net="/run/netns/$NS_SBX" \
		podman kube play --configmap "$WORK/$name/configmap.yaml" "$WORK/$name/pod.yaml" \
		>"$WORK/$name/play.out" 2>&1
	echo $? >"$WORK/$name.play.rc"
	i=0
	# kube play returns once the init container has ended and the agent
	# container started (or not: then it stays "created").
	while [ $i -lt 240 ] &&
		[ "$(podman inspect --format '{{.State.Status}}' "$pod-agent" 2>/dev/null)" = running ]; do
		sleep 1
		i=$((i + 1))
	done
	: >"$WORK/$name.agent.log"
	: >"$WORK/$name.fw.log"
	state=$(podman inspect --format '{{.State.Status}}' "$pod-agent" 2>/dev/null)
	if [ "$state" = exited ] || [ "$state" = stopped ]; then
		podman logs "$pod-agent" >"$WORK/$name.agent.log" 2>&1
		podman inspect --format '{{.State.ExitCode}}' "$pod-agent" >"$WORK/$name.agent.rc"
	else
		echo "never started ($state)" >"$WORK/$name.agent.rc"
	fi
	if podman container exists "$pod-firewall"; then
		podman logs "$pod-firewall" >"$WORK/$name.fw.log" 2>&1
		podman inspect --format '{{.State.ExitCode}}' "$pod-firewall" >"$WORK/$name.fw.rc"
	fi
	cp -r "$ws" "$WORK/$name/ws"
	cp "$WORK/gateway.log" "$WORK/$name.gw"
	podman pod rm -f "$pod" >/dev/null 2>&1
	echo "# $name: kube play exit $(cat "$WORK/$name.play.rc"), init container exit $(cat "$WORK/$name.fw.rc" 2>/dev/null)," \
		"agent container exit $(cat "$WORK/$name.agent.rc"); their logs (last lines), the gateway's:"
	tail -3 "$WORK/$name.fw.log" | note
	tail -6 "$WORK/$name.agent.log" | note
	note <"$WORK/$name.gw"
}
agent_rc() { cat "$WORK/$1.agent.rc" 2>/dev/null; }

# The status of the agent's command and of its PID 1, read inside the pod.
STATUS='grep -E "^(Uid|Gid|Groups|Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs|Seccomp):" /proc/self/status >/workspace/self.status; grep -E "^(Uid|Cap(Eff|Prm|Bnd)|NoNewPrivs):" /proc/1/status >/workspace/pid1.status; if ! touch /usr/local/x 2>/dev/null && touch /home/node/.w /tmp/.w; then echo read-only root, HOME and /tmp writable >/workspace/fs; fi'

# --- 1. without the init container --------------------------------------------------
ip netns exec "$NS_SBX" nft delete table inet cli_sandbox 2>/dev/null
play noinit --no-init --sh "touch /workspace/ran"
ok "no init container: the agent container stops with 71 (got $(agent_rc noinit))" [ "$(agent_rc noinit)" = 71 ]
ok "no init container: its line says the firewall is missing and names --firewall-only" \
	sh -c "grep -q 'firewall is missing' '$WORK/noinit.agent.log' && grep -q -- '--firewall-only' '$WORK/noinit.agent.log'"
ok "no init container: the command never ran" [ ! -e "$WORK/noinit/ws/ran" ]

# --- 2. the Job's pod ----------------------------------------------------------------------
digest=$(CONTAINERS_CONF="$WORK/containers.conf" podman run --rm --network none --cap-drop ALL -e TASK_AGENT_MODEL_BASE_URL=$URL \
	"$IMAGE" --dry-run 2>/dev/null | sed -n 's/^# ruleset sha256: //p')
[ -n "$digest" ] || bail "no digest from --dry-run"
play status --sh "$STATUS"
ok "init container: exits 0 (got $(cat "$WORK/status.fw.rc" 2>/dev/null))" [ "$(cat "$WORK/status.fw.rc" 2>/dev/null)" = 0 ]
ok "init container: the start line, with the dry-run's digest" \
	grep -q "firewall up: profile=managed allow=\[tcp/8080:192.0.2.1\] .*sha256=$digest" "$WORK/status.fw.log"
ok "agent container: the self-check passed, with the same digest" \
	grep -q "verified: .*gateway tcp 192.0.2.1:8080 connected.*sha256=$digest" "$WORK/status.agent.log"
s="$WORK/status/ws/self.status"
note <"$s"
ok "agent container: uid and gid 1000" sh -c "grep -Eq '^Uid:[[:space:]]+1000[[:space:]]+1000[[:space:]]+1000[[:space:]]+1000\$' '$s' &&
	grep -Eq '^Gid:[[:space:]]+1000[[:space:]]+1000[[:space:]]+1000[[:space:]]+1000\$' '$s'"
ok "agent container: CapEff 0, and every other set empty" \
	sh -c "[ \$(grep -Ec '^Cap(Inh|Prm|Eff|Bnd|Amb):[[:space:]]+0+\$' '$s') -eq 5 ]"
ok "agent container: no_new_privs 1, a seccomp filter on" \
	sh -c "grep -Eq '^NoNewPrivs:[[:space:]]+1\$' '$s' && grep -Eq '^Seccomp:[[:space:]]+2\$' '$s'"
ok "agent container: its PID 1 (the init) is uid 1000 with nothing either" \
	sh -c "grep -Eq '^Uid:[[:space:]]+1000[[:space:]]' '$WORK/status/ws/pid1.status' &&
	[ \$(grep -Ec '^Cap(Prm|Eff|Bnd):[[:space:]]+0+\$' '$WORK/status/ws/pid1.status') -eq 3 ]"
ok "agent container: the root filesystem is read-only, HOME and /tmp (emptyDirs) are writable" \
	grep -q 'read-only root' "$WORK/status/ws/fs"
# The Job's own args: the CLI is the command, so the init points it at the gateway.
play claude --args '["--verify-only", "--", "claude", "-p", "say pong"]'
ok "claude: the self-check passed" grep -q "verified: " "$WORK/claude.agent.log"
ok "claude: exits 0 in the restricted container (got $(agent_rc claude))" [ "$(agent_rc claude)" = 0 ]
ok "claude: prints the gateway's reply" grep -qF "$REPLY" "$WORK/claude.agent.log"
ok "claude: called POST /v1/messages" grep -q '^POST /v1/messages' "$WORK/claude.gw"

play codex --env OPENAI_API_KEY=sk-test-not-a-key --args '["--verify-only", "--", "codex", "exec", "--skip-git-repo-check", "say pong"]'
ok "codex: exits 0 with a read-only root (got $(agent_rc codex))" [ "$(agent_rc codex)" = 0 ]
ok "codex: prints the gateway's reply" grep -qF "$REPLY" "$WORK/codex.agent.log"
ok "codex: called the Responses API" grep -q ' /responses' "$WORK/codex.gw"

play pi --args '["--verify-only", "--", "pi", "-p", "say pong"]'
ok "pi: exits 0 with a read-only root (got $(agent_rc pi))" [ "$(agent_rc pi)" = 0 ]
ok "pi: prints the gateway's reply" grep -qF "$REPLY" "$WORK/pi.agent.log"
ok "pi: called POST /v1/messages" grep -q '^POST /v1/messages' "$WORK/pi.gw"

# --- 3. an init container without NET_ADMIN, an agent container with a capability ------
play nonetadmin --init-no-net-admin --sh "touch /workspace/ran"
ok "init container without NET_ADMIN: exits 71 (got $(cat "$WORK/nonetadmin.fw.rc" 2>/dev/null))" \
	[ "$(cat "$WORK/nonetadmin.fw.rc" 2>/dev/null)" = 71 ]
ok "init container without NET_ADMIN: its line names NET_ADMIN" grep -q NET_ADMIN "$WORK/nonetadmin.fw.log"
ok "init container without NET_ADMIN: the agent container never starts" \
	sh -c "grep -q 'never started' '$WORK/nonetadmin.agent.rc'  && [ ! -e '$WORK/nonetadmin/ws/ran' ]"
# --- an agent container that holds a capability after all ----------------------------
play cap --add-cap NET_RAW --sh "touch /workspace/ran"
ok "agent container with NET_RAW: stops with 78 (got $(agent_rc cap))" [ "$(agent_rc cap)" = 78 ]
ok "agent container with NET_RAW: the line names the capability set and the fix" \
	sh -c "grep -q 'holds capabilities\|bounding set' '$WORK/cap.agent.log' && grep -q 'drop: \[ALL\]' '$WORK/cap.agent.log'"
ok "agent container with NET_RAW: the command never ran" [ ! -e "$WORK/cap/ws/ran" ]

t_done
