#!/bin/sh
# The gateway's path under a real engine (issue 21's leftovers): by default a private dockerd
# (tests/dockerd.sh; its containers get Docker's own default seccomp profile), with
# GWTEST_ENGINE=podman the same checks under rootful podman. host/cli-sandbox is run as a person
# runs it: CLI_SANDBOX_ENGINE names the engine, the key is exported in the shell only, and
# nothing goes through engine arguments but the test's networks (and podman's runc/rlimits).
#
# Since issue 32 (keys out by default) the gateway runs behind the key broker: the sandbox is on
# the broker's network alone (BRNET, 198.51.100.176/29), the router on SBNET with the broker.
#   - claude against a Chat-Completions-only mock through the gateway: the model's tool call
#     runs, /workspace is written as the sandbox user (uid 1000: the person is root), the tool
#     result reaches the upstream, the upstream saw the key; while the tool runs: no process
#     of the sandbox has the key in its environment (/proc/*/environ from a privileged root
#     shell in it), the key is not in the sandbox's inspect output, a request to the gateway
#     without the run's token is refused (401); neither the key nor the token is in the
#     gateway's inspect output (they reach it in a file on memory, gone once it answers); the
#     gateway's own container runs with a
#     read-only root, no capability, no-new-privileges, a pids and a memory limit; nothing is
#     left after the run;
#   - shell: `claude -p` typed in `cli-sandbox shell` takes the same path (the same checks),
#     and its environment names the gateway and holds the token, never the key;
#   - ping through an `up` gateway and to a direct (Anthropic) endpoint: READY, the token and
#     the key in no inspect output of its sandbox and in no command line on this host (taken
#     while it runs), the credentials file gone after;
#   - a host-local endpoint: the gateway is given this host's address on its upstream network
#     (a dry run);
#   - doctor --json: the plan, the gateway's image, the `up` gateway running, then its record
#     stale once its container is gone; a refused plan (codex) with its reason.
# Networks (this test's part of the range, 198.51.100.160/28): upstream 198.51.100.160/29
# (mocks at .162 and .163), the sandbox's 198.51.100.168/29 (the gateway, the sandbox, a peer);
# both --internal; the broker up keeps: 198.51.100.152/29 (CLI_SANDBOX_BROKER_UP_SUBNET), the
# router behind it: 198.51.100.144/29 (CLI_SANDBOX_GATEWAY_UP_SUBNET). Their
# .161 and .169 are bridges in this machine's namespace: nothing is sent there, nor from this
# namespace to any container.
#
# usage: sh tests/gateway/engine.sh   (root; images in podman's storage: CLI_SANDBOX_TEST_IMAGE,
#   default localhost/cli-sandbox:claude; CLI_SANDBOX_GATEWAY_IMAGE, default
#   localhost/cli-sandbox-gateway:latest; GWTEST_ENGINE=docker|podman, default docker)
# shellcheck disable=SC2086,SC2016,SC2034,SC1091 # word lists split on purpose; $VARS for the inner shells
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$ROOT/tests/lib/tap.sh"
. "$ROOT/tests/dockerd.sh"
ENGINE=${GWTEST_ENGINE:-docker}
IMAGE=${CLI_SANDBOX_TEST_IMAGE:-localhost/cli-sandbox:claude}
GWIMAGE=${CLI_SANDBOX_GATEWAY_IMAGE:-localhost/cli-sandbox-gateway:latest}
TAG=gwops$$
UPNET=cli-sandbox-gwops-up-$$ SBNET=cli-sandbox-gwops-sb-$$ BRNET=cli-sandbox-gwops-br-$$
BIMAGE=${CLI_SANDBOX_BROKER_IMAGE:-localhost/cli-sandbox-broker:latest}
WORK=$(mktemp -d /tmp/cli-sandbox-gwops.XXXXXX)
chmod 755 "$WORK"
E=''
case $ENGINE in
docker) E=$DOCKER LIMITS='' ;;
podman) E=podman LIMITS="--runtime runc --ulimit nofile=1024:1024 --ulimit nproc=1000:1000" ;;
*) echo "Bail out! GWTEST_ENGINE is docker or podman"; exit 1 ;;
esac

cleanup() {
	# only what this test made: its mocks, and whatever is on its networks; one at a time
	for c in $("$E" ps -aq --filter "name=$TAG" 2>/dev/null) $("$E" ps -aq --filter "network=$UPNET" 2>/dev/null) \
		$("$E" ps -aq --filter "network=$SBNET" 2>/dev/null) $("$E" ps -aq --filter "network=$BRNET" 2>/dev/null); do
		"$E" rm -f "$c" >/dev/null 2>&1
	done
	"$E" rm -f cli-sandbox-broker-gwo-chat cli-sandbox-gw-gwo-chat >/dev/null 2>&1
	for n in cli-sandbox-broker-gwo-chat cli-sandbox-gw-gwo-chat "$BRNET" "$SBNET" "$UPNET"; do "$E" network rm "$n" >/dev/null 2>&1; done
	[ "$ENGINE" != docker ] || dockerd_stop
	[ -z "${XDG_RUNTIME_DIR:-}" ] || case $XDG_RUNTIME_DIR in /dev/shm/cs-gwops.*) rm -rf "$XDG_RUNTIME_DIR" ;; esac
	[ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

[ "$(id -u)" -eq 0 ] || { echo "Bail out! run as root"; exit 1; }
podman image exists "$IMAGE" || { echo "Bail out! no image $IMAGE (image/build.sh --cli claude)"; exit 1; }
podman image exists "$GWIMAGE" || { echo "Bail out! no gateway image $GWIMAGE (image/build.sh --cli gateway)"; exit 1; }
podman image exists "$BIMAGE" || { echo "Bail out! no key broker image $BIMAGE (image/build.sh --cli broker)"; exit 1; }
mkdir -p "$WORK/bin"
if [ "$ENGINE" = docker ]; then
	dockerd_start || { echo "Bail out! the test dockerd did not start"; exit 1; }
	echo "# $("$DOCKER" version --format 'dockerd {{.Server.Version}}, client {{.Client.Version}}')"
	{ dockerd_load "$IMAGE" && dockerd_load "$GWIMAGE" && dockerd_load "$BIMAGE"; } || { echo "Bail out! cannot load the images into dockerd"; exit 1; }
	# the person's docker: Debian's client, which matches the daemon
	ln -s "$DOCKER" "$WORK/bin/docker"
fi
PATH=$WORK/bin:$PATH

KEY=sk-gwops-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
export CLI_SANDBOX_TEST_KEY=$KEY
export CLI_SANDBOX_HOME=$WORK/conf CLI_SANDBOX_ENGINE=$ENGINE CLI_SANDBOX_IMAGE=$IMAGE
export CLI_SANDBOX_GATEWAY_IMAGE=$GWIMAGE CLI_SANDBOX_ENGINE_ARGS=$LIMITS
export CLI_SANDBOX_GATEWAY_UPSTREAM_NETWORK=$UPNET CLI_SANDBOX_GATEWAY_NETWORK=$SBNET
export CLI_SANDBOX_GATEWAY_SUBNET=198.51.100.168/29
# Keys out (issue 32): the sandbox is on the key broker's network alone; the router on SBNET,
# behind the broker.
export CLI_SANDBOX_BROKER_IMAGE=$BIMAGE CLI_SANDBOX_BROKER_NETWORK=$BRNET CLI_SANDBOX_BROKER_SUBNET=198.51.100.176/29 CLI_SANDBOX_BROKER_UP_SUBNET=198.51.100.152/29
# up's router, behind up's broker, on a network of its own name
export CLI_SANDBOX_GATEWAY_UP_SUBNET=198.51.100.144/29
# The person's memory-backed runtime directory, where the credentials files go.
XDG_RUNTIME_DIR=$(mktemp -d /dev/shm/cs-gwops.XXXXXX) && export XDG_RUNTIME_DIR
HOME=$WORK/home && mkdir -p "$HOME" && export HOME
CS="sh $ROOT/host/cli-sandbox"
mkdir -p "$WORK/log" && chmod 777 "$WORK/log"

"$E" network create --internal --subnet 198.51.100.160/29 "$UPNET" >/dev/null || { echo "Bail out! network"; exit 1; }
# The tool command: writes its uid, then waits (at most 40 s) until the test has looked at the
# sandbox and says so with /workspace/inspected.
TOOL='id -u > /workspace/uid; i=0; while [ ! -e /workspace/inspected ] && [ $i -lt 200 ]; do sleep 0.2; i=$((i + 1)); done; echo "uid=$(id -u)"'
# mock NAME ADDRESS PORT MOCK-ARGS...: a mock upstream on the upstream network (python3 of the
# sandbox image, as nobody).
mock() {
	_n=$1 _ip=$2 _p=$3; shift 3
	"$E" run -d --name "$TAG-$_n" $LIMITS --network "$UPNET" --ip "$_ip" --entrypoint python3 --user 65534:65534 \
		-v "$HERE:/gw:ro" -v "$WORK/log:/log" "$IMAGE" /gw/mock_gateway.py --listen 0.0.0.0 --port "$_p" \
		--log "/log/$_n.log" --max-seconds 1500 "$@" >/dev/null || { echo "Bail out! mock $_n"; exit 1; }
}
mock up 198.51.100.162 8080 --speaks chat --require-key "$KEY" --tool-command "$TOOL"
mock ant 198.51.100.163 8081 --speaks anthropic,chat,responses --require-key "$KEY"
$CS endpoints add gwo-chat http://198.51.100.162:8080/v1 --type openai --model mock-model --key-env CLI_SANDBOX_TEST_KEY --no-probe >/dev/null
$CS endpoints add gwo-ant http://198.51.100.163:8081 --type anthropic --speaks anthropic,chat,responses --model mock-model --key-env CLI_SANDBOX_TEST_KEY --no-probe >/dev/null

# t DESCRIPTION COMMAND...: one check; te DESCRIPTION 'SHELL EXPRESSION': one check of a compound.
t() { _d=$1; shift; if "$@"; then t_pass "$_d"; else t_fail "$_d"; fi; }
te() { _d=$1; shift; if eval "$*"; then t_pass "$_d"; else t_fail "$_d"; fi; }
leftovers() { "$E" ps -a --format '{{.Names}}' | grep -c -e '^cli-sandbox-gw-run-' -e '^cli-sandbox-gw-ping-' -e '^cli-sandbox-broker-run-'; }
no_net() { ! "$E" network inspect "$1" >/dev/null 2>&1; }
# environ CONTAINER: every process's environment in it, read as root (root's processes) and as
# the sandbox user (the CLI's). Not exec --privileged: docker then asks for capabilities this
# machine's processes lack ("unable to apply caps"), and without CAP_SYS_PTRACE a uid reads
# only its own processes' environ.
environ() {
	for u in 0 1000; do
		"$E" exec -u "$u" "$1" sh -c 'for f in /proc/[0-9]*/environ; do tr "\0" "\n" <"$f"; echo; done 2>/dev/null'
	done
}
# unauth IP: what the gateway answers a request without the token, from a peer on its network.
unauth() {
	"$E" run --rm $LIMITS --network "$SBNET" --entrypoint python3 --user 65534:65534 "$IMAGE" -c '
import sys, urllib.request, urllib.error
req = urllib.request.Request("http://%s:3456/v1/messages" % sys.argv[1], data=b"{\"model\":\"m\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}", headers={"content-type": "application/json"})
try: print(urllib.request.urlopen(req, timeout=10).status)
except urllib.error.HTTPError as e: print(e.code)
except Exception as e: print("error", e)' "$1" 2>/dev/null
}
sandbox_id() { "$E" ps -q --filter "network=$BRNET" --filter "ancestor=$IMAGE" | head -n 1; }
gateway_id() { "$E" ps -q --filter "network=$SBNET" --filter label=io.cli-sandbox.role=gateway | head -n 1; }

# agent NAME COMMAND...: host/cli-sandbox COMMAND... in the background in a workspace of its
# own; while the tool waits, look at the sandbox and the gateway; then judge what happened.
agent() {
	name=$1; shift
	ws=$WORK/ws-$name
	mkdir -p "$ws" && chown 1000:1000 "$ws"
	before=$(grep -c '^TOOL_RESULT' "$WORK/log/up.log" 2>/dev/null)
	(cd "$ws" && timeout 240 $CS --endpoint gwo-chat "$@" </dev/null >"$WORK/$name.out" 2>&1) &
	run=$!
	i=0
	while [ ! -s "$ws/uid" ] && [ $i -lt 1500 ] && kill -0 $run 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
	sb=$(sandbox_id) gw=$(gateway_id)
	sbnets=x env_key=x env_tok=x insp_key=x refused=x gwconf=x gwproc=x gwsecrets=x
	: >"$WORK/$name.gwinspect"
	if [ -n "$sb" ]; then
		environ "$sb" >"$WORK/$name.environ"
		env_key=$(grep -cF "$KEY" "$WORK/$name.environ")
		env_tok=$(grep -c '^ANTHROPIC_API_KEY=csbt_[0-9a-f]\{64\}$' "$WORK/$name.environ")
		sbnets=$("$E" inspect -f '{{range $k, $v := .NetworkSettings.Networks}}{{$k}} {{end}}' "$sb")
		"$E" inspect "$sb" >"$WORK/$name.inspect" 2>&1
		insp_key=$(grep -cF "$KEY" "$WORK/$name.inspect")
	fi
	if [ -n "$gw" ]; then
		gwip=$("$E" inspect -f "{{(index .NetworkSettings.Networks \"$SBNET\").IPAddress}}" "$gw")
		refused=$(unauth "$gwip")
		"$E" inspect "$gw" >"$WORK/$name.gwinspect" 2>&1
		gwsecrets=0
		for f in "$XDG_RUNTIME_DIR"/cli-sandbox-gateway.*; do [ ! -e "$f" ] || gwsecrets=1; done
		gwconf=$("$E" inspect -f '{{.HostConfig.ReadonlyRootfs}} {{.HostConfig.PidsLimit}} {{.HostConfig.Memory}}' "$gw" 2>&1)
		# what the kernel says of its router: capabilities, no_new_privs, a root it cannot write
		gwproc=$("$E" exec "$gw" sh -c 'grep -E "^(CapEff|CapBnd|NoNewPrivs):" /proc/1/status | tr -s "\t " " " | tr "\n" " "; touch /usr/x 2>/dev/null && echo writable || echo read-only' 2>&1)
	fi
	touch "$ws/inspected"
	wait $run
	what="$ENGINE, $name"
	te "$what: the sandbox ran beside the gateway" '[ -n "$sb" ] && [ -n "$gw" ]'
	t "$what: /workspace written as the sandbox user, uid 1000" [ "$(cat "$ws/uid" 2>/dev/null)" = 1000 ]
	te "$what: the tool result reached the model" '[ "$(grep -c "^TOOL_RESULT .*uid=1000" "$WORK/log/up.log")" -gt "${before:-0}" ]'
	t "$what: the upstream saw the key" sh -c 'grep "^HEADERS" "$1" | grep -qF "$2"' sh "$WORK/log/up.log" "$KEY"
	t "$what: no process in the sandbox has the key in its environment" [ "$env_key" = 0 ]
	te "$what: the CLI has the run's token instead" '[ "$env_tok" != 0 ] && [ "$env_tok" != x ]'
	t "$what: the key is not in $ENGINE inspect of the sandbox" [ "$insp_key" = 0 ]
	t "$what: a request to the gateway without the run's token is refused (401)" [ "$refused" = 401 ]
	token=$(sed -n 's/^ANTHROPIC_API_KEY=\(csbt_[0-9a-f]\{64\}\)$/\1/p' "$WORK/$name.environ" | head -n 1)
	t "$what: the sandbox is on the key broker's network alone, not the router's" [ "${sbnets:-x}" = "$BRNET " ]
	te "$what: neither the key nor the run's token is in $ENGINE inspect of the gateway" \
		'[ -s "$WORK/$name.gwinspect" ] && [ -n "$token" ] && ! grep -qF -e "$KEY" -e "$token" "$WORK/$name.gwinspect"'
	t "$what: the gateway's secrets file is gone once it answers" [ "$gwsecrets" = 0 ]
	t "$what: the gateway's container: a read-only root, pids limit 128, memory 512 MiB" [ "$gwconf" = "true 128 536870912" ]
	t "$what: its router: no capability, no_new_privs, a root it cannot write" \
		[ "$gwproc" = "CapEff: 0000000000000000 CapBnd: 0000000000000000 NoNewPrivs: 1 read-only" ]
	t "$what: nothing left running after it" [ "$(leftovers)" = 0 ]
	t "$what: the sandbox's and the router's networks are removed after it" sh -c '! "$1" network inspect "$2" >/dev/null 2>&1 && ! "$1" network inspect "$3" >/dev/null 2>&1' sh "$E" "$BRNET" "$SBNET"
	te "$what: no credentials file left" '[ -z "$(ls -A "$XDG_RUNTIME_DIR")" ]'
	echo "# $what: gateway $gwconf; $gwproc"
	tail -n 3 "$WORK/$name.out" | t_note
}

agent run claude -p "run the command"
# shell: claude typed in the shell, with the environment the shell gets.
# (claude's autonomy is the init's for a run, which bash does not get: asked for here, as a
# person who wants it would.)
agent shell shell -- -c 'env | grep -e "^ANTHROPIC_BASE_URL=" -e "^BASH_ENV=" -e "^CLAUDE_CONFIG_DIR=" >/workspace/env; claude -p --permission-mode bypassPermissions "run the command"'
te "$ENGINE, shell: its environment names the key broker in front of the gateway (ANTHROPIC_BASE_URL)" \
	'grep -q "^ANTHROPIC_BASE_URL=http://198\.51\.100\.1[78][0-9]:8080$" "$WORK/ws-shell/env"'
te "... and claude's state folder, the one a run's claude keeps (CLAUDE_CONFIG_DIR)" \
	'grep -qx "CLAUDE_CONFIG_DIR=/home/node/.claude" "$WORK/ws-shell/env"'

# A host-local endpoint: the gateway reaches it at this host's address on the network the
# gateway is started on (a dry run: nothing is started, nothing sent). Docker gives an
# internal network a gateway address (its bridge, .161); podman does not, and the script says so.
$CS endpoints add gwo-local http://localhost:11434 --type ollama --model m --no-probe >/dev/null
(cd "$WORK/ws-run" && $CS --endpoint gwo-local --dry-run claude >"$WORK/local.out" 2>&1)
rc=$?
if [ "$ENGINE" = docker ]; then
	te "$ENGINE: a host-local endpoint is the upstream network's gateway address for the gateway" \
		'[ $rc -eq 0 ] && grep -qF "http://198.51.100.161:11434/v1/chat/completions" "$WORK/local.out"'
else
	te "$ENGINE: a host-local endpoint with an upstream network that has no gateway address: refused, naming it" \
		'[ $rc -ne 0 ] && grep -qF "network $UPNET: " "$WORK/local.out" && grep -q CLI_SANDBOX_HOST_ADDRESS "$WORK/local.out"'
fi
te "... a dry run that started nothing" '[ "$(leftovers)" = 0 ] && no_net "$SBNET"'
tail -n 2 "$WORK/local.out" | t_note

# ---------------------------------------------------------------- ping
# watch NAME: in the background, every 0.05 s, the inspect output of each sandbox on either
# network (the test's own containers, named with TAG, left out) and this host's command lines,
# until $WORK/NAME.stop exists. Two engine calls a look, whatever the number of containers (an
# inspect of each name first made three, and a short ping's sandbox could live between them).
watch() {
	(while [ ! -e "$WORK/$1.stop" ]; do
		_ids=$("$E" ps --filter "ancestor=$IMAGE" --format '{{.ID}} {{.Names}}' 2>/dev/null | grep -v -- "$TAG" | cut -d ' ' -f 1)
		# shellcheck disable=SC2086 # the ids, a word each
		[ -z "$_ids" ] || "$E" inspect $_ids >>"$WORK/$1.inspect" 2>/dev/null
		ps -eo args >>"$WORK/$1.ps"
		sleep 0.05
	done) &
	WATCH=$!
}
# watched_ping NAME ARG...: ping (the runner with ARG...) under watch NAME; again, at most five
# times in all, while the watch caught no sandbox of it: a ping's sandbox can come and go
# between two of the watch's looks (joining the broker 'up' keeps takes 20 ms, not 2 s).
# Sets rc to the last ping's status.
watched_ping() {
	_w=$1 _n=0
	shift
	while [ $_n -lt 5 ]; do
		: >"$WORK/$_w.inspect"
		rm -f "$WORK/$_w.stop"
		watch "$_w"
		(timeout 180 "$@" >"$WORK/$_w.out" 2>&1)
		rc=$?
		touch "$WORK/$_w.stop"; wait "$WATCH"
		_n=$((_n + 1))
		! grep -q /run/cli-sandbox-credentials/env "$WORK/$_w.inspect" || break
	done
	[ $_n -eq 1 ] || echo "# $_w: $_n pings while the watch looked for its sandbox"
}
(timeout 120 $CS --endpoint gwo-chat up >"$WORK/up.out" 2>&1)
rc=$?
te "$ENGINE: up starts a long-lived gateway" '[ $rc -eq 0 ] && "$E" ps --format "{{.Names}}" | grep -qx cli-sandbox-gw-gwo-chat'
te "... and a key broker in front of it" '"$E" ps --format "{{.Names}}" | grep -qx cli-sandbox-broker-gwo-chat'
te "... both in one session, recorded for the endpoint (no key, no token in the record)" \
	'[ -f "$CLI_SANDBOX_HOME/broker/gwo-chat" ] && ! grep -qF -e "$KEY" "$CLI_SANDBOX_HOME/broker/gwo-chat" && grep -qx "router=cli-sandbox-gw-gwo-chat" "$(sed -n "s/^session=//p" "$CLI_SANDBOX_HOME/broker/gwo-chat")/session"'
# The router's token, which the broker holds as its key: read from the router's own process
# (root here), for the searches below.
TOKEN=$("$E" exec cli-sandbox-gw-gwo-chat sh -c 'tr "\0" "\n" </proc/1/environ | sed -n "s/^CLI_SANDBOX_GATEWAY_TOKEN=//p"')
"$E" inspect cli-sandbox-gw-gwo-chat >"$WORK/up.inspect" 2>&1
te "... neither its token nor the key in $ENGINE inspect of it" \
	'[ ${#TOKEN} -eq 32 ] && grep -q cli-sandbox-gw-gwo-chat "$WORK/up.inspect" && ! grep -qF -e "$KEY" -e "$TOKEN" "$WORK/up.inspect"'
# shellcheck disable=SC2086 # CS: the runner's words
watched_ping ping1 $CS --endpoint gwo-chat ping --cli claude --no-tools
te "$ENGINE: ping through the up gateway: READY, as a run: joining the key broker up keeps" '[ $rc -eq 0 ] && grep -q "^READY (claude via translator to gwo-chat)" "$WORK/ping1.out" && grep -q "^ok *direct" "$WORK/ping1.out" && grep -q "^ok *broker" "$WORK/ping1.out"'
if grep -q "/run/cli-sandbox-credentials/env" "$WORK/ping1.inspect"; then
	t_pass "... its sandbox was inspected while it ran"
	te "... neither the router's token nor the key is in any inspect output" '[ ${#TOKEN} -eq 32 ] && ! grep -qF -e "$TOKEN" -e "$KEY" "$WORK/ping1.inspect"'
else
	# Joining the broker up keeps takes 20 ms, and the ping's sandbox lives well under a second:
	# podman's ps and inspect (about 0.1 s each here) can miss it five times in five.
	t_skip "... its sandbox was inspected while it ran: the watch missed it in 5 pings (it lived shorter than $E ps + inspect)"
	t_skip "... neither the router's token nor the key is in any inspect output: no inspect of it was caught"
fi
te "... nor in any command line on this host (but the mocks' own, which require the key)" '! grep -v mock_gateway.py "$WORK/ping1.ps" | grep -qF -e "$TOKEN" -e "$KEY"'
te "... and no credentials file is left (the broker up keeps has its own directory)" '[ -z "$(ls -A "$XDG_RUNTIME_DIR" | grep -v "^cli-sandbox-session-up\.")" ]'
t_note <"$WORK/ping1.out"
# A keyed endpoint that speaks Messages: a run's path, keys out (the broker on the upstream
# network, CLI_SANDBOX_GATEWAY_UPSTREAM_NETWORK; the sandbox on the broker's alone).
# shellcheck disable=SC2086 # CS: the runner's words
watched_ping ping2 $CS --endpoint gwo-ant ping --cli claude --no-tools
te "$ENGINE: ping to a direct endpoint with a key: READY, through the key broker" '[ $rc -eq 0 ] && grep -q "^READY (claude via broker to gwo-ant)" "$WORK/ping2.out"'
te "... its sandbox was inspected while it ran" 'grep -q "/run/cli-sandbox-credentials/env" "$WORK/ping2.inspect"'
te "... on the broker's network" 'grep -qF "$BRNET" "$WORK/ping2.inspect"'
te "... the upstream saw the key" 'grep "^HEADERS" "$WORK/log/ant.log" | grep -qF "$KEY"'
te "... the key is in no inspect output" '! grep -qF "$KEY" "$WORK/ping2.inspect"'
te "... nor in any command line on this host (but the mocks' own, which require it)" '! grep -v mock_gateway.py "$WORK/ping2.ps" | grep -qF "$KEY"'
te "... and no credentials file is left (the broker up keeps has its own directory)" '[ -z "$(ls -A "$XDG_RUNTIME_DIR" | grep -v "^cli-sandbox-session-up\.")" ]'
t_note <"$WORK/ping2.out"

# ---------------------------------------------------------------- doctor
mkdir -p "$WORK/ws-doc" && chown 1000:1000 "$WORK/ws-doc"
# doctor from a namespace with only loopback: its TCP test of the endpoint goes nowhere
# (it fails there), while the engine answers on its socket.
DOC="unshare --net $CS"
jq_is() { python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); c = {x["name"]: x for x in j["checks"]}; sys.exit(0 if eval(sys.argv[2]) else 1)' "$@"; }
(cd "$WORK/ws-doc" && $DOC --endpoint gwo-chat doctor --json >"$WORK/doc1.out" 2>&1)
te "$ENGINE: doctor --json: the plan is the gateway" 'jq_is "$WORK/doc1.out" "c[\"path\"][\"ok\"] and \"through the gateway\" in c[\"path\"][\"detail\"]"'
te "... the gateway's image present" 'jq_is "$WORK/doc1.out" "c[\"gateway-image\"][\"ok\"]"'
te "... the up gateway running" 'jq_is "$WORK/doc1.out" "c[\"gateway\"][\"ok\"] and c[\"gateway\"][\"detail\"].startswith(\"up: cli-sandbox-gw-gwo-chat\")"'
te "... the credential is the run's token" 'jq_is "$WORK/doc1.out" "c[\"credential\"][\"ok\"] and \"token\" in c[\"credential\"][\"detail\"]"'
"$E" rm -f cli-sandbox-gw-gwo-chat >/dev/null 2>&1
(cd "$WORK/ws-doc" && $DOC --endpoint gwo-chat doctor --json >"$WORK/doc2.out" 2>&1)
te "$ENGINE: doctor --json, its container gone: a stale record, with the fix" 'jq_is "$WORK/doc2.out" "not c[\"gateway\"][\"ok\"] and \"stale record\" in c[\"gateway\"][\"detail\"] and \"down\" in c[\"gateway\"][\"fix\"]"'
te "... which doctor leaves in place" '[ -f "$CLI_SANDBOX_HOME/broker/gwo-chat" ]'
(cd "$WORK/ws-doc" && $DOC --endpoint gwo-chat doctor codex --json >"$WORK/doc3.out" 2>&1)
te "$ENGINE: doctor --json for codex: the plan refused, with the reason" 'jq_is "$WORK/doc3.out" "not c[\"path\"][\"ok\"] and \"needs the OpenAI Responses API\" in c[\"path\"][\"detail\"]"'
$CS --endpoint gwo-chat down >/dev/null 2>&1
te "$ENGINE: down removes the stale record and the router's network" '[ ! -f "$CLI_SANDBOX_HOME/broker/gwo-chat" ] && no_net cli-sandbox-gw-gwo-chat'
te "... and the key broker up kept: its container, network and directory" \
	'! "$E" ps -a --format "{{.Names}}" | grep -qx cli-sandbox-broker-gwo-chat && no_net cli-sandbox-broker-gwo-chat && [ -z "$(ls -A "$XDG_RUNTIME_DIR")" ]'
sed 's/^/#   /' "$WORK/doc2.out"

# up interrupted (TERM to its process group, as a Ctrl-C reaches the terminal's) while its
# gateway starts: session start finishes, then removes what it made (it has no guardian), and the
# script waits for it.
setsid sh "$ROOT/host/cli-sandbox" --endpoint gwo-chat up >"$WORK/up2.out" 2>&1 &
upid=$!
secrets() { _s=0; for f in "$XDG_RUNTIME_DIR"/cli-sandbox-gateway.*; do [ ! -e "$f" ] || _s=1; done; echo $_s; }
i=0
while [ "$(secrets)" = 0 ] && [ $i -lt 600 ] && kill -0 $upid 2>/dev/null; do sleep 0.05; i=$((i + 1)); done
seen=$(secrets)
/bin/kill -TERM -- "-$upid"  # (procps's: dash's kill takes no process group)
wait $upid
rc=$?
te "$ENGINE: up sent TERM while its gateway starts: exit 143, its secrets file removed" \
	'[ "$seen" = 1 ] && [ $rc = 143 ] && [ "$(secrets)" = 0 ]'
te "... and nothing it had started is left: router, broker, their networks, the record" \
	'! "$E" ps -a --format "{{.Names}}" | grep -qx -e cli-sandbox-gw-gwo-chat -e cli-sandbox-broker-gwo-chat && no_net cli-sandbox-gw-gwo-chat && no_net cli-sandbox-broker-gwo-chat && [ ! -f "$CLI_SANDBOX_HOME/broker/gwo-chat" ] && [ -z "$(ls -A "$XDG_RUNTIME_DIR")" ]'
sed 's/^/#   /' "$WORK/up2.out"
$CS --endpoint gwo-chat down >/dev/null 2>&1
t_done
