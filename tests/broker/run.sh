#!/bin/sh
# Keys out by default (issue 32, items 4 and 5; docs/broker.md "In a run"): host/cli-sandbox run
# as a person runs it (the key exported in the shell only; CLI_SANDBOX_ENGINE names the engine;
# engine arguments: only podman's runc and rlimits, as on every run here), under podman
# (KBTEST_ENGINE=podman, the default) or a private dockerd (KBTEST_ENGINE=docker).
#
#   - claude against an Anthropic endpoint with a key-env: the broker starts beside the sandbox;
#     the model's tool call runs; while it runs: the upstream got the key in x-api-key and never
#     the token; no sandbox /proc/*/environ, no file under the sandbox's /run /tmp /home
#     /workspace, no mount of it, no inspect (sandbox, broker), no host command line holds the
#     key; the CLI holds a run token (csbt_...) instead; from inside the sandbox, with that
#     token, /api/config, /api/logs, /api/restart, /ui get 404 and /v1/messages 200; the sandbox
#     is on the broker's internal network alone; after the run the broker, its network and its
#     directory (key and token) are gone;
#   - claude against a Chat-Completions-only endpoint (translation): sandbox -> broker -> router
#     -> upstream; the sandbox is not on the router's network; /api/config through the broker
#     is 404; the router's own address is unreachable from the sandbox; the key reached the
#     upstream as Bearer;
#   - up: the router and a broker in front of it kept for the endpoint; two runs get two tokens
#     of their own on that broker, each refused (401) once its run ended; the router's token in
#     no sandbox; down removes the router, the broker, their networks and directory;
#   - codex with --managed URL and OPENAI_API_KEY exported (podman): the upstream gets Bearer KEY
#     on /v1/responses;
#   - --keys-in: the key inside (shell's printenv), one warning line on stderr;
#   - --dry-run: the broker's engine command, RUN-TOKEN as the token, no key, no token.
# Networks (this test's, all --internal): upstream 198.51.100.192/29 (mocks .194 .195), the
# sandbox's 198.51.100.200/29, the router's 198.51.100.184/29, up's broker's 198.51.100.176/29,
# up's router's 198.51.100.208/29.
# usage: sh tests/broker/run.sh   (root; takes the engine lock itself; images in podman's
#   storage: localhost/cli-sandbox:latest's :claude and :codex, -broker:latest, -gateway:latest)
# shellcheck disable=SC2086,SC2016,SC1091,SC2034 # word lists split on purpose; $VARS for inner shells
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
LOCK=${CLI_SANDBOX_ENGINE_LOCK:-/tmp/cli-sandbox-engine.lock}
if [ -z "${KBTEST_LOCKED:-}" ] && command -v flock >/dev/null 2>&1; then
	KBTEST_LOCKED=1 exec flock "$LOCK" sh "$0" "$@"
fi
. "$ROOT/tests/lib/tap.sh"
. "$ROOT/tests/dockerd.sh"
ENGINE=${KBTEST_ENGINE:-podman}
BASEIMG=${CLI_SANDBOX_TEST_IMAGE_BASE:-localhost/cli-sandbox}
IMAGE=$BASEIMG:claude
BIMAGE=$BASEIMG-broker:latest GWIMAGE=$BASEIMG-gateway:latest
TAG=kbrun$$
UPNET=cli-sandbox-kbrun-up-$$ SBNET=cli-sandbox-kbrun-sb-$$ BACKNET=cli-sandbox-kbrun-back-$$
WORK=$(mktemp -d /tmp/cli-sandbox-kbrun.XXXXXX)
chmod 755 "$WORK"
case $ENGINE in
docker) E=$DOCKER LIMITS='' ;;
podman) E=podman LIMITS="--runtime runc --ulimit nofile=1024:1024 --ulimit nproc=1000:1000" ;;
*) echo "Bail out! KBTEST_ENGINE is docker or podman"; exit 1 ;;
esac

cleanup() {
	for c in $("$E" ps -aq --filter "name=$TAG" 2>/dev/null) $("$E" ps -aq --filter "network=$UPNET" 2>/dev/null) \
		$("$E" ps -aq --filter "network=$SBNET" 2>/dev/null) $("$E" ps -aq --filter "network=$BACKNET" 2>/dev/null); do
		"$E" rm -f "$c" >/dev/null 2>&1
	done
	for c in cli-sandbox-broker-kb-chat cli-sandbox-gw-kb-chat; do "$E" rm -f "$c" >/dev/null 2>&1; done
	for n in "$SBNET" "$BACKNET" "$UPNET" cli-sandbox-broker-kb-chat cli-sandbox-gw-kb-chat; do "$E" network rm "$n" >/dev/null 2>&1; done
	[ "$ENGINE" != docker ] || dockerd_stop
	case ${XDG_RUNTIME_DIR:-} in /dev/shm/cs-kbrun.*) rm -rf "$XDG_RUNTIME_DIR" ;; esac
	[ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

[ "$(id -u)" -eq 0 ] || { echo "Bail out! run as root"; exit 1; }
for i in "$IMAGE" "$BIMAGE" "$GWIMAGE"; do
	podman image exists "$i" || { echo "1..0 # SKIP no image $i (image/build.sh --cli claude|broker|gateway)"; exit 0; }
done
mkdir -p "$WORK/bin"
if [ "$ENGINE" = docker ]; then
	dockerd_start || { echo "Bail out! the test dockerd did not start"; exit 1; }
	{ dockerd_load "$IMAGE" && dockerd_load "$BIMAGE" && dockerd_load "$GWIMAGE"; } || { echo "Bail out! cannot load the images into dockerd"; exit 1; }
	ln -s "$DOCKER" "$WORK/bin/docker"
fi
PATH=$WORK/bin:$PATH

KEY=sk-kbrun-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
export CLI_SANDBOX_TEST_KEY="$KEY"
export CLI_SANDBOX_HOME=$WORK/conf CLI_SANDBOX_ENGINE=$ENGINE CLI_SANDBOX_IMAGE=$BASEIMG:latest
export CLI_SANDBOX_ENGINE_ARGS=$LIMITS
export CLI_SANDBOX_BROKER_NETWORK=$SBNET CLI_SANDBOX_BROKER_SUBNET=198.51.100.200/29 CLI_SANDBOX_BROKER_UP_SUBNET=198.51.100.176/29
export CLI_SANDBOX_BROKER_UPSTREAM_NETWORK=$UPNET CLI_SANDBOX_GATEWAY_UPSTREAM_NETWORK=$UPNET
export CLI_SANDBOX_GATEWAY_NETWORK=$BACKNET CLI_SANDBOX_GATEWAY_SUBNET=198.51.100.184/29
export CLI_SANDBOX_GATEWAY_UP_SUBNET=198.51.100.208/29
XDG_RUNTIME_DIR=$(mktemp -d /dev/shm/cs-kbrun.XXXXXX) && export XDG_RUNTIME_DIR
HOME=$WORK/home && mkdir -p "$HOME" && export HOME
unset ANTHROPIC_API_KEY ANTHROPIC_AUTH_TOKEN OPENAI_API_KEY CODEX_API_KEY GEMINI_API_KEY
CS="sh $ROOT/host/cli-sandbox"
mkdir -p "$WORK/log" && chmod 777 "$WORK/log"

"$E" network create --internal --subnet 198.51.100.192/29 "$UPNET" >/dev/null || { echo "Bail out! network"; exit 1; }
TOOL='id -u > /workspace/uid; i=0; while [ ! -e /workspace/inspected ] && [ $i -lt 200 ]; do sleep 0.2; i=$((i + 1)); done; echo "uid=$(id -u)"'
mock() {
	_n=$1 _ip=$2; shift 2
	"$E" run -d --name "$TAG-$_n" $LIMITS --network "$UPNET" --ip "$_ip" --entrypoint python3 --user 65534:65534 \
		-v "$ROOT/tests/gateway:/gw:ro" -v "$WORK/log:/log" "$IMAGE" /gw/mock_gateway.py --listen 0.0.0.0 --port 8080 \
		--log "/log/$_n.log" --max-seconds 900 --require-key "$KEY" --tool-command "$TOOL" "$@" >/dev/null ||
		{ echo "Bail out! mock $_n"; exit 1; }
}
mock ant 198.51.100.194 --speaks anthropic,chat,responses
mock chat 198.51.100.195 --speaks chat
$CS endpoints add kb-ant http://198.51.100.194:8080 --type anthropic --speaks anthropic,chat,responses --model mock-model --key-env CLI_SANDBOX_TEST_KEY --no-probe >/dev/null
$CS endpoints add kb-chat http://198.51.100.195:8080/v1 --type openai --speaks chat --model mock-model --key-env CLI_SANDBOX_TEST_KEY --no-probe >/dev/null

t() { _d=$1; shift; if "$@"; then t_pass "$_d"; else t_fail "$_d"; fi; }
te() { _d=$1; shift; if eval "$*"; then t_pass "$_d"; else t_fail "$_d"; fi; }
no_net() { ! "$E" network inspect "$1" >/dev/null 2>&1; }
environ() {
	for u in 0 1000; do
		"$E" exec -u "$u" "$1" sh -c 'for f in /proc/[0-9]*/environ; do tr "\0" "\n" <"$f"; echo; done 2>/dev/null'
	done
}
# ANET: the network of the run under test: the run's own broker's (SBNET), or up's broker's
ANET=$SBNET
sandbox_id() { "$E" ps -q --filter "network=$ANET" --filter "ancestor=$1" | head -n 1; }
broker_id() { "$E" ps -q --filter "network=$ANET" --filter label=io.cli-sandbox.role=broker | head -n 1; }
# probes BROKER-IP < TOKEN: from inside the sandbox (its firewall, as uid 1000): METHOD PATH STATUS
probes() {
	"$E" exec -i -u 1000 "$sb" python3 -c '
import sys, urllib.request, urllib.error
tok, ip = sys.stdin.readline().strip(), sys.argv[1]
body = b"{\"model\":\"mock-model\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"
for m, p in (("GET", "/api/config"), ("GET", "/api/logs?file=/proc/self/environ"), ("POST", "/api/restart"),
             ("GET", "/ui"), ("GET", "/ui/"), ("POST", "/v1/messages")):
    r = urllib.request.Request("http://%s:8080%s" % (ip, p), method=m, data=body if m == "POST" else None,
                               headers={"x-api-key": tok, "content-type": "application/json", "anthropic-version": "2023-06-01"})
    try: s = urllib.request.urlopen(r, timeout=10).status
    except urllib.error.HTTPError as e: s = e.code
    except Exception as e: s = "error"
    print(m, p.split("?")[0], s)' "$1" 2>&1
}
# probe_from_net BROKER-IP < TOKEN: POST /v1/messages from a new container on ANET: the status
probe_from_net() {
	"$E" run --rm -i $LIMITS --network "$ANET" --entrypoint python3 --user 65534:65534 "$IMAGE" -c '
import sys, urllib.request, urllib.error
tok, ip = sys.stdin.readline().strip(), sys.argv[1]
body = b"{\"model\":\"mock-model\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"
r = urllib.request.Request("http://%s:8080/v1/messages" % ip, method="POST", data=body,
                           headers={"x-api-key": tok, "content-type": "application/json", "anthropic-version": "2023-06-01"})
try: print(urllib.request.urlopen(r, timeout=10).status)
except urllib.error.HTTPError as e: print(e.code)
except Exception as e: print("error")' "$1" 2>&1 | tail -n 1
}
# watch NAME: every 0.1 s this host's command lines, until $WORK/NAME.stop exists.
watch() {
	(while [ ! -e "$WORK/$1.stop" ]; do ps -eo args >>"$WORK/$1.ps"; sleep 0.1; done) &
	WATCH=$!
}

# agent NAME ENDPOINT COMMAND...: host/cli-sandbox --endpoint ENDPOINT COMMAND... in the
# background; while the model's tool waits, look at everything; then judge.
agent() {
	name=$1 ep=$2; shift 2
	ws=$WORK/ws-$name
	mkdir -p "$ws" && chown 1000:1000 "$ws"
	watch "$name"
	T0=$(date +%s)
	(cd "$ws" && timeout 240 $CS --endpoint "$ep" "$@" </dev/null >"$WORK/$name.out" 2>&1) &
	run=$!
	i=0
	while [ ! -s "$ws/uid" ] && [ $i -lt 1500 ] && kill -0 $run 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
	sb=$(sandbox_id "$IMAGE") br=$(broker_id)
	env_key=x token='' insp_key=x files_key=x mounts=x nets=x probe_out='' brip='' brconf=x
	: >"$WORK/$name.insp"
	if [ -n "$sb" ] && [ -n "$br" ]; then
		environ "$sb" >"$WORK/$name.environ"
		# the key on stdin, never in a command line: the watch above would see this grep's own
		env_key=$(printf '%s\n' "$KEY" | grep -cF -f - "$WORK/$name.environ")
		token=$(sed -n 's/^ANTHROPIC_API_KEY=\(csbt_[0-9a-f]\{64\}\)$/\1/p' "$WORK/$name.environ" | head -n 1)
		"$E" inspect "$sb" "$br" >"$WORK/$name.insp" 2>&1
		insp_key=$(printf '%s\n' "$KEY" | grep -cF -f - "$WORK/$name.insp")
		# the key and the token go on stdin, never in a command line (the test looks there too)
		files_key=$(printf '%s\n' "$KEY" | "$E" exec -i -u 0 "$sb" sh -c 'grep -rlF -f /dev/stdin /run /tmp /home /workspace /etc 2>/dev/null | wc -l')
		mounts=$("$E" exec -u 0 "$sb" grep -c cli-sandbox-broker /proc/1/mountinfo)
		nets=$("$E" inspect -f '{{range $k, $v := .NetworkSettings.Networks}}{{$k}} {{end}}' "$sb")
		brip=$("$E" inspect -f "{{(index .NetworkSettings.Networks \"$ANET\").IPAddress}}" "$br")
		[ -z "$token" ] || probe_out=$(printf '%s\n' "$token" | probes "$brip")
		brconf=$("$E" inspect -f '{{.HostConfig.ReadonlyRootfs}} {{.HostConfig.PidsLimit}} {{.HostConfig.Memory}} {{.Config.User}}' "$br" 2>&1)
		[ "$name" != translate ] || router_probe=$("$E" exec -u 1000 "$sb" python3 -c '
import socket, sys
s = socket.socket(); s.settimeout(5)
try: s.connect((sys.argv[1], 3456)); print("open")
except Exception as e: print("refused")' "$(
			"$E" inspect -f "{{(index .NetworkSettings.Networks \"$BACKNET\").IPAddress}}" \
				"$("$E" ps -q --filter label=io.cli-sandbox.role=gateway --filter "network=$BACKNET" | head -n 1)")" 2>&1)
	fi
	touch "$ws/inspected"
	wait $run
	rc=$?
	T1=$(date +%s)
	touch "$WORK/$name.stop"; wait "$WATCH"
	what="$ENGINE, $name"
	te "$what: the run ended well (exit $rc, $((T1 - T0)) s)" '[ $rc = 0 ]'
	te "$what: the sandbox ran beside the broker" '[ -n "$sb" ] && [ -n "$br" ]'
	t "$what: /workspace written by the model's tool as uid 1000" [ "$(cat "$ws/uid" 2>/dev/null)" = 1000 ]
	te "$what: the CLI holds a run token (csbt_...)" '[ -n "$token" ]'
	t "$what: no process in the sandbox has the key in its environment" [ "$env_key" = 0 ]
	t "$what: no file under the sandbox's /run /tmp /home /workspace /etc holds it" [ "$files_key" = 0 ]
	t "$what: the broker's directory is not mounted in the sandbox" [ "$mounts" = 0 ]
	t "$what: the key is in no $ENGINE inspect (sandbox, broker)" [ "$insp_key" = 0 ]
	te "$what: ... nor the token" '[ -n "$token" ] && ! grep -qF "$token" "$WORK/$name.insp"'
	te "$what: the key and the token are in no command line on this host" \
		'[ -s "$WORK/$name.ps" ] && ! grep -v mock_gateway.py "$WORK/$name.ps" | grep -qF -e "$KEY" -e "${token:-x}"'
	t "$what: the sandbox is on the broker's network alone" [ "$nets" = "$ANET " ]
	t "$what: the broker: read-only root, 64 PIDs, 64 MiB, uid 1002" [ "$brconf" = "true 64 67108864 1002:1002" ]
	for p in "GET /api/config" "GET /api/logs" "POST /api/restart" "GET /ui" "GET /ui/"; do
		te "$what: from inside, with the token: $p is 404" 'printf "%s\n" "$probe_out" | grep -qx "$p 404"'
	done
	te "$what: ... and POST /v1/messages is 200" 'printf "%s\n" "$probe_out" | grep -qx "POST /v1/messages 200"'
	if [ "$ANET" = "$SBNET" ]; then
		# after the run: the token's broker, its directory and the network are gone
		te "$what: after the run: no broker left, its network removed" '[ -z "$(broker_id)" ] && no_net "$SBNET"'
		te "$what: ... its directory (the key, the token's file) removed" '[ -z "$(ls -A "$XDG_RUNTIME_DIR")" ]'
	else
		# up's broker stays; the run's token is revoked, its own directory gone (up's stays)
		te "$what: after the run: up's broker still runs" '[ -n "$(broker_id)" ]'
		after=$(printf '%s\n' "${token:-x}" | probe_from_net "$brip")
		te "$what: ... the run's token revoked: POST /v1/messages with it is now $after (401)" '[ "$after" = 401 ]'
		te "$what: ... the run's directory removed (up's alone left)" '[ "$(ls -A "$XDG_RUNTIME_DIR" | wc -l)" = 1 ]'
	fi
	[ -z "$probe_out" ] || printf '%s\n' "$probe_out" | t_note
	tail -n 3 "$WORK/$name.out" | t_note
}

agent direct kb-ant claude -p "run the command"
te "$ENGINE, direct: the upstream got the key as x-api-key" 'grep "^HEADERS POST /v1/messages" "$WORK/log/ant.log" | grep -qiF "\"x-api-key\": \"$KEY\""'
te "$ENGINE, direct: ... and never a run token" '! grep -q csbt_ "$WORK/log/ant.log"'
te "$ENGINE, direct: ... the tool result reached it" 'grep -q "^TOOL_RESULT .*uid=1000" "$WORK/log/ant.log"'

agent translate kb-chat claude -p "run the command"
te "$ENGINE, translate: the router is unreachable from the sandbox" '[ "${router_probe:-x}" = refused ]'
te "$ENGINE, translate: the upstream got the key as Bearer, on Chat Completions" 'grep "^HEADERS POST /v1/chat/completions" "$WORK/log/chat.log" | grep -qF "Bearer $KEY"'
te "$ENGINE, translate: ... and never a run token" '! grep -q csbt_ "$WORK/log/chat.log"'
te "$ENGINE, translate: no router left" '[ -z "$("$E" ps -aq --filter label=io.cli-sandbox.role=gateway)" ] && no_net "$BACKNET"'

# up (issue 32, item 3): one router and one broker kept for the endpoint (the broker in front
# of the router, holding the router's token); each run adds a token of its own to that broker,
# revoked when it ends: two runs, two tokens, each refused (401) once its run is over; the
# router's token (the up record's) never reaches a sandbox.
(timeout 120 $CS --endpoint kb-chat up >"$WORK/up.out" 2>&1)
rc=$?
te "$ENGINE, up: the router for kb-chat is up, on a network of its own" '[ $rc = 0 ] && "$E" ps --format "{{.Names}}" | grep -qx cli-sandbox-gw-kb-chat && "$E" network inspect cli-sandbox-gw-kb-chat >/dev/null 2>&1'
te "$ENGINE, up: ... and its key broker, on a network of its own" '"$E" ps --format "{{.Names}}" | grep -qx cli-sandbox-broker-kb-chat && "$E" network inspect cli-sandbox-broker-kb-chat >/dev/null 2>&1'
# the router's own token, which up's broker holds as its key: from the router's process (root here)
uptoken=$("$E" exec cli-sandbox-gw-kb-chat sh -c 'tr "\0" "\n" </proc/1/environ | sed -n "s/^CLI_SANDBOX_GATEWAY_TOKEN=//p"' 2>/dev/null)
ANET=cli-sandbox-broker-kb-chat
agent up kb-chat claude -p "run the command"
token1=$token
agent up2 kb-chat claude -p "run the command"
token2=$token
ANET=$SBNET
te "$ENGINE, up: two runs got two tokens of their own" '[ -n "$token1" ] && [ -n "$token2" ] && [ "$token1" != "$token2" ]'
te "$ENGINE, up: the router's own token is in no sandbox environment" '[ -n "$uptoken" ] && [ -s "$WORK/up.environ" ] && ! grep -qF "$uptoken" "$WORK/up.environ"'
te "$ENGINE, up: the router still runs after the runs" '"$E" ps --format "{{.Names}}" | grep -qx cli-sandbox-gw-kb-chat'
$CS --endpoint kb-chat down >/dev/null 2>&1
te "$ENGINE, down: the router, the broker and their networks removed, the broker's directory too" \
	'! "$E" ps -a --format "{{.Names}}" | grep -qx -e cli-sandbox-gw-kb-chat -e cli-sandbox-broker-kb-chat && no_net cli-sandbox-gw-kb-chat && no_net cli-sandbox-broker-kb-chat && [ -z "$(ls -A "$XDG_RUNTIME_DIR")" ]'

# codex with --managed URL, its key exported as a person does (podman: its own image is there)
if [ "$ENGINE" = podman ] && podman image exists "$BASEIMG:codex"; then
	mkdir -p "$WORK/ws-codex" && chown 1000:1000 "$WORK/ws-codex" && touch "$WORK/ws-codex/inspected"
	(cd "$WORK/ws-codex" && OPENAI_API_KEY=$KEY timeout 240 $CS --managed http://198.51.100.194:8080/v1 codex exec --skip-git-repo-check "say pong" \
		</dev/null >"$WORK/codex.out" 2>&1)
	rc=$?
	te "$ENGINE, codex --managed URL: exit 0" '[ $rc = 0 ]'
	te "... the upstream got Bearer KEY on /v1/responses" 'grep "^HEADERS POST /v1/responses" "$WORK/log/ant.log" | grep -qF "Bearer $KEY"'
	te "... never a run token" '! grep -q csbt_ "$WORK/log/ant.log"'
	te "... nothing left" '[ -z "$(broker_id)" ] && no_net "$SBNET" && [ -z "$(ls -A "$XDG_RUNTIME_DIR")" ]'
	tail -n 3 "$WORK/codex.out" | t_note
else
	t_skip "codex: run under podman with $BASEIMG:codex only"
fi

# --keys-in: the key itself inside, one warning
mkdir -p "$WORK/ws-in" && chown 1000:1000 "$WORK/ws-in"
(cd "$WORK/ws-in" && CLI_SANDBOX_ENGINE_ARGS="$LIMITS --network $UPNET" timeout 120 $CS --endpoint kb-ant --keys-in shell -- -c 'printenv ANTHROPIC_API_KEY' \
	</dev/null >"$WORK/in.out" 2>"$WORK/in.err")
rc=$?
te "$ENGINE, --keys-in: the key is inside" '[ $rc = 0 ] && [ "$(cat "$WORK/in.out")" = "$KEY" ]'
te "... with one warning line on stderr" '[ "$(grep -c "warning: --keys-in" "$WORK/in.err")" = 1 ]'
te "... and no broker" '[ -z "$(broker_id)" ]'

# The guardian (docs/broker.md, "The end"): the runner killed with SIGKILL mid-run runs no trap;
# the process session start left ends the session: the sandbox, the broker, the network and the
# directory go within 30 s (the bound is generous: the engine's rm and network rm, retried).
mkdir -p "$WORK/ws-kill" && chown 1000:1000 "$WORK/ws-kill"
(cd "$WORK/ws-kill" && exec $CS --endpoint kb-ant shell -- -c 'sleep 120' </dev/null >"$WORK/kill.out" 2>&1) &
runner=$!
i=0
while [ $i -lt 600 ] && [ "$("$E" ps -q --filter "network=$SBNET" | wc -l)" -lt 2 ]; do sleep 0.2; i=$((i + 1)); done
te "$ENGINE, guardian: a keyed run's sandbox and broker run" '[ "$("$E" ps -q --filter "network=$SBNET" | wc -l)" -ge 2 ]'
kill -KILL "$runner"
i=0
while [ $i -lt 150 ] && { [ -n "$("$E" ps -aq --filter "network=$SBNET")" ] || ! no_net "$SBNET" || [ -n "$(ls -A "$XDG_RUNTIME_DIR")" ]; }; do
	sleep 0.2; i=$((i + 1))
done
te "$ENGINE, guardian: the runner SIGKILLed: sandbox, broker, network and directory gone within 30 s (took $((i / 5)) s)" \
	'[ -z "$("$E" ps -aq --filter "network=$SBNET")" ] && [ -z "$("$E" ps -aq --filter name=cli-sandbox-broker-run-$runner)" ] && no_net "$SBNET" && [ -z "$(ls -A "$XDG_RUNTIME_DIR")" ]'
wait "$runner" 2>/dev/null

# --dry-run: the broker's command, a placeholder for the token, no key, no token
(cd "$WORK/ws-in" && $CS --endpoint kb-ant --dry-run claude >"$WORK/dry.out" 2>&1)
rc=$?
te "$ENGINE, --dry-run: exit 0, the broker's engine command in it" '[ $rc = 0 ] && grep -qF "'"'"'io.cli-sandbox.role=broker'"'"'" "$WORK/dry.out"'
te "... RUN-TOKEN for the token" 'grep -q "ANTHROPIC_API_KEY = RUN-TOKEN" "$WORK/dry.out"'
te "... no key, no token" '! grep -qF -e "$KEY" -e csbt_ "$WORK/dry.out"'
te "... nothing started" '[ -z "$(broker_id)" ] && no_net "$SBNET"'
t_done
