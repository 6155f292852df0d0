#!/bin/sh
# Switchable backends end to end with podman (issue 21): the real gateway image beside the
# real sandbox image, mock upstreams (tests/gateway/mock_gateway.py) as containers on an
# internal test network, host/cli-sandbox run as a person runs it (the key exported in the
# shell, nothing passed through engine arguments but this machine's runc and limits).
#
#   - claude and pi against a Chat-Completions-only upstream, through the gateway: the model's
#     shell tool call runs, /workspace is written as uid 1000, the tool result reaches the
#     upstream; the key's value is in no process environment of the sandbox (read from a
#     privileged root shell in it), in no file under its home or /workspace, not in --dry-run;
#     the upstream saw the key; a request to the gateway without the run's token is refused;
#     nothing is left running after the run;
#   - claude and pi against an Anthropic upstream (direct; claude through the gateway with
#     --keep-keys-out), claude against an OpenAI upstream with Responses (gateway) and a recent
#     Ollama with Responses (gateway); codex direct against both of those;
#   - codex against the Chat-only upstream and an Ollama without Responses: refused before
#     anything starts, naming what works;
#   - ping: READY against a tool-calling Ollama model, NOT OK with the hint against one that
#     answers in text; status --json before and after up; down.
# Networks: cli-sandbox-gw-test-up-PID (198.51.100.96/27) and -sb-PID (198.51.100.64/27),
# or GWTEST_UP_SUBNET and GWTEST_SB_SUBNET (the mocks then at the upstream's .2 to .6 above its
# network address: a /29 each is enough, the runs being one at a time),
# both internal. Nothing is sent from this namespace to them: the host script's probes are
# not used here (endpoints are added with --type), they are tested on loopback.
#
# usage: sh tests/gateway/backends.sh   (root; images: CLI_SANDBOX_TEST_IMAGE, default
#   localhost/cli-sandbox:latest; CLI_SANDBOX_GATEWAY_IMAGE, default
#   localhost/cli-sandbox-gateway:latest; CLI_SANDBOX_PYTHON_IMAGE, made if missing)
# shellcheck disable=SC2086,SC2034,SC2016 # word lists split on purpose; names used through eval
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$ROOT/tests/lib/tap.sh"
# shellcheck source=tests/gateway/lib.sh
. "$ROOT/tests/gateway/lib.sh"
IMAGE=${CLI_SANDBOX_TEST_IMAGE:-localhost/cli-sandbox:latest}
GWIMAGE=${CLI_SANDBOX_GATEWAY_IMAGE:-localhost/cli-sandbox-gateway:latest}
PYIMAGE=${CLI_SANDBOX_PYTHON_IMAGE:-localhost/cli-sandbox-python:test}
LIMITS="--runtime runc --ulimit nofile=1024:1024 --ulimit nproc=1000:1000"
UPNET=cli-sandbox-gw-test-up-$$ SBNET=cli-sandbox-gw-test-sb-$$ BRNET=cli-sandbox-gw-test-br-$$
MOCK=cli-sandbox-gw-test-mock-$$ OLL=cli-sandbox-gw-test-oll-$$
ANT=cli-sandbox-gw-test-ant-$$ OLC=cli-sandbox-gw-test-olc-$$ OLR=cli-sandbox-gw-test-olr-$$ PEER=cli-sandbox-gw-test-peer-$$
WORK=$(mktemp -d /tmp/cli-sandbox-gw-test.XXXXXX)
chmod 755 "$WORK"

cleanup() {
	# one at a time: podman refuses a whole list when one name is missing
	for c in "$MOCK" "$OLL" "$ANT" "$OLC" "$OLR" "$PEER" cli-sandbox-gw-oll cli-sandbox-broker-oll $(podman ps -aq --filter "network=$SBNET" 2>/dev/null) \
		$(podman ps -aq --filter "network=$BRNET" 2>/dev/null); do
		podman rm -f "$c" >/dev/null 2>&1
	done
	for n in cli-sandbox-broker-oll cli-sandbox-gw-oll "$BRNET" "$SBNET" "$UPNET"; do podman network rm "$n" >/dev/null 2>&1; done
	[ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

[ "$(id -u)" -eq 0 ] || { echo "Bail out! run as root"; exit 1; }
podman image exists "$IMAGE" || { echo "Bail out! no image $IMAGE (image/build.sh)"; exit 1; }
podman image exists "$GWIMAGE" || { echo "Bail out! no gateway image $GWIMAGE (image/build.sh --cli gateway)"; exit 1; }
sh "$HERE/make-python-image.sh" "$PYIMAGE" || { echo "Bail out! cannot make $PYIMAGE"; exit 1; }

KEY=sk-test-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
export CLI_SANDBOX_TEST_KEY=$KEY
export CLI_SANDBOX_HOME=$WORK/conf CLI_SANDBOX_ENGINE=podman CLI_SANDBOX_IMAGE=$IMAGE
export CLI_SANDBOX_GATEWAY_IMAGE=$GWIMAGE CLI_SANDBOX_ENGINE_ARGS=$LIMITS
export CLI_SANDBOX_GATEWAY_UPSTREAM_NETWORK=$UPNET CLI_SANDBOX_GATEWAY_NETWORK=$SBNET
UPSUB=${GWTEST_UP_SUBNET:-198.51.100.96/27}
export CLI_SANDBOX_GATEWAY_SUBNET=${GWTEST_SB_SUBNET:-198.51.100.64/27}
# The key broker's network, the sandbox's own (issue 32: keys out by default): the router, where
# one translates, is on SBNET behind the broker, which the sandbox is not on.
export CLI_SANDBOX_BROKER_NETWORK=$BRNET CLI_SANDBOX_BROKER_SUBNET=${GWTEST_BR_SUBNET:-198.51.100.48/28}
# What 'up' keeps, on networks of their own names: the router, and the broker in front of it.
export CLI_SANDBOX_GATEWAY_UP_SUBNET=${GWTEST_GWUP_SUBNET:-198.51.100.32/29}
export CLI_SANDBOX_BROKER_UP_SUBNET=${GWTEST_BRUP_SUBNET:-198.51.100.40/29}
# the upstream's network address + N
up_ip() { _a=${UPSUB%/*}; echo "${_a%.*}.$((${_a##*.} + $1))"; }
IP_MOCK=$(up_ip 2) IP_OLL=$(up_ip 3) IP_ANT=$(up_ip 4) IP_OLC=$(up_ip 5) IP_OLR=$(up_ip 6)
HOME=$WORK/home && mkdir -p "$HOME" && export HOME
CS="sh $ROOT/host/cli-sandbox"
mkdir -p "$WORK/log" && chmod 777 "$WORK/log"

podman network create --internal --subnet "$UPSUB" "$UPNET" >/dev/null || { echo "Bail out! network"; exit 1; }
# The tool command: writes its uid, then waits (at most 40 s) until the test has inspected the
# sandbox and says so with /workspace/inspected.
CMD='id -u > /workspace/uid; i=0; while [ ! -e /workspace/inspected ] && [ $i -lt 200 ]; do sleep 0.2; i=$((i + 1)); done; echo "uid=$(id -u)"'
# shellcheck disable=SC2086
podman run -d --name "$MOCK" $LIMITS --network "$UPNET" --ip "$IP_MOCK" \
	-v "$HERE:/gw:ro" -v "$WORK/log:/log" "$PYIMAGE" python3 /gw/mock_gateway.py --listen 0.0.0.0 \
	--port 8080 --speaks chat --require-key "$KEY" --tool-command "$CMD" --log /log/up.log \
	--max-seconds 900 >/dev/null || { echo "Bail out! mock upstream"; exit 1; }
# An upstream that speaks Messages, Chat Completions and Responses (a provider's own API), and
# an Ollama with a tool-calling model, both scripted like the first.
# shellcheck disable=SC2086
podman run -d --name "$ANT" $LIMITS --network "$UPNET" --ip "$IP_ANT" \
	-v "$HERE:/gw:ro" -v "$WORK/log:/log" "$PYIMAGE" python3 /gw/mock_gateway.py --listen 0.0.0.0 \
	--port 8081 --speaks anthropic,chat,responses --require-key "$KEY" --tool-command "$CMD" \
	--log /log/ant.log --max-seconds 900 >/dev/null || { echo "Bail out! mock provider"; exit 1; }
# shellcheck disable=SC2086
podman run -d --name "$OLC" $LIMITS --network "$UPNET" --ip "$IP_OLC" \
	-v "$HERE:/gw:ro" -v "$WORK/log:/log" "$PYIMAGE" python3 /gw/mock_gateway.py --listen 0.0.0.0 \
	--port 11434 --speaks ollama,chat --models mock-model+tools --tool-command "$CMD" \
	--log /log/olc.log --max-seconds 900 >/dev/null || { echo "Bail out! mock ollama (scripted)"; exit 1; }
# A recent Ollama: its native API, Chat Completions and Responses at /v1 (scripted).
# shellcheck disable=SC2086
podman run -d --name "$OLR" $LIMITS --network "$UPNET" --ip "$IP_OLR" \
	-v "$HERE:/gw:ro" -v "$WORK/log:/log" "$PYIMAGE" python3 /gw/mock_gateway.py --listen 0.0.0.0 \
	--port 11434 --speaks ollama,chat,responses --models mock-model+tools --tool-command "$CMD" \
	--log /log/olr.log --max-seconds 900 >/dev/null || { echo "Bail out! mock ollama with Responses (scripted)"; exit 1; }
# shellcheck disable=SC2086
podman run -d --name "$OLL" $LIMITS --network "$UPNET" --ip "$IP_OLL" \
	-v "$HERE:/gw:ro" -v "$WORK/log:/log" "$PYIMAGE" python3 /gw/mock_gateway.py --listen 0.0.0.0 \
	--port 11434 --speaks ollama,chat --models qwen3:8b+tools,gemma:2b --call-tools \
	--log /log/oll.log --max-seconds 900 >/dev/null || { echo "Bail out! mock ollama"; exit 1; }

$CS endpoints add up1 "http://$IP_MOCK:8080/v1" --type openai --model mock-model --key-env CLI_SANDBOX_TEST_KEY --no-probe >/dev/null
$CS endpoints add ant "http://$IP_ANT:8081" --type anthropic --speaks anthropic,chat,responses --model mock-model --key-env CLI_SANDBOX_TEST_KEY >/dev/null
$CS endpoints add oai "http://$IP_ANT:8081/v1" --type openai --speaks chat,responses --model mock-model --key-env CLI_SANDBOX_TEST_KEY --no-probe >/dev/null
$CS endpoints add olr "http://$IP_OLR:11434" --type ollama --speaks ollama,chat,responses --model mock-model --no-probe >/dev/null
$CS endpoints add olc "http://$IP_OLC:11434" --type ollama --model mock-model --no-probe >/dev/null
$CS endpoints add oll "http://$IP_OLL:11434" --type ollama --model qwen3:8b --no-probe >/dev/null
$CS endpoints add oll-text "http://$IP_OLL:11434" --type ollama --model gemma:2b --no-probe >/dev/null

# t DESCRIPTION COMMAND...: one check; te DESCRIPTION 'SHELL EXPRESSION': one check of a compound.
t() { _d=$1; shift; if "$@"; then t_pass "$_d"; else t_fail "$_d"; fi; }
te() { _d=$1; shift; if eval "$*"; then t_pass "$_d"; else t_fail "$_d"; fi; }
not_exists() { ! podman network exists "$1"; }
leftovers() { podman ps -a --format '{{.Names}}' | grep -c -e '^cli-sandbox-gw-run-' -e '^cli-sandbox-gw-ping-' -e '^cli-sandbox-broker-run-'; }

# agent CLI ENDPOINT LOG PATH [OPTION]: one run in the background (PATH gateway: broker and
# router; broker: the key broker alone; direct: no key, the endpoint itself); while the tool
# sleeps, inspect the sandbox. A direct run's sandbox is put on the upstream's network (what a
# person's default network is to their server); the others are on the broker's alone.
agent() {
	cli=$1 ep=$2 lname=$3 log=$WORK/log/$3.log path=$4 opt=${5:-}
	what="$cli x $ep ($path${opt:+ $opt})"
	ws=$WORK/ws-$cli-$ep$opt
	mkdir -p "$ws" && chown 1000:1000 "$ws"
	: >"$log"
	case $cli in
	codex) set -- exec --skip-git-repo-check "run the command" ;;
	*) set -- -p "run the command" ;;
	esac
	net=$BRNET extra=$LIMITS
	[ "$path" != direct ] || { net=$UPNET extra="$LIMITS --network $UPNET"; }
	(cd "$ws" && CLI_SANDBOX_ENGINE_ARGS=$extra timeout 240 $CS --endpoint "$ep" $opt "$cli" -- "$@" </dev/null >"$WORK/run.out" 2>&1) &
	run=$!
	i=0
	while [ ! -s "$ws/uid" ] && [ $i -lt 1200 ] && kill -0 $run 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
	# the image host/cli-sandbox runs: the CLI's own next to NAME:latest, else IMAGE itself
	img=$IMAGE
	case $IMAGE in *:latest) podman image exists "${IMAGE%:latest}:$cli" && img=${IMAGE%:latest}:$cli ;; esac
	sb=$(podman ps -q --filter "network=$net" --filter "ancestor=$(podman image inspect -f '{{.Id}}' "$img")" | head -n 1)
	gw=$(podman ps -q --filter "network=$SBNET" --filter label=io.cli-sandbox.role=gateway | head -n 1)
	br=$(podman ps -q --filter "network=$BRNET" --filter label=io.cli-sandbox.role=broker | head -n 1)
	sbnets=$([ -z "$sb" ] || podman inspect -f '{{range $k, $v := .NetworkSettings.Networks}}{{$k}} {{end}}' "$sb")
	# A direct run has nothing more to inspect: codex's exec tool hands back what a command
	# printed within about 10 s, so it must not wait.
	[ "$path" != direct ] || touch "$ws/inspected"
	env_hits=x file_hits=x tok_hits=x refused=x gw_inspect_hits=x secrets_left=x
	if [ -n "$sb" ]; then
		env_hits=$(podman exec --privileged -u 0 "$sb" sh -c 'for f in /proc/[0-9]*/environ; do tr "\0" "\n" <"$f"; done 2>/dev/null' | grep -cF "$KEY")
		tok_hits=$(podman exec --privileged -u 0 "$sb" sh -c 'for f in /proc/[0-9]*/environ; do tr "\0" "\n" <"$f"; done 2>/dev/null' | grep -c '^\(ANTHROPIC_API_KEY\|CODEX_API_KEY\)=csbt_[0-9a-f]\{64\}$')
		file_hits=$(podman exec --privileged -u 0 "$sb" sh -c 'grep -rlF "$0" /home/node /workspace /tmp 2>/dev/null | wc -l' "$KEY")
	fi
	if [ -n "$gw" ]; then
		gwip=$(podman inspect -f "{{(index .NetworkSettings.Networks \"$SBNET\").IPAddress}}" "$gw")
		# The gateway holds the key in its process only: not in its container's config.
		gw_inspect_hits=$(podman inspect "$gw" | grep -cF "$KEY")
		secrets_left=$(find /dev/shm ${XDG_RUNTIME_DIR:+"$XDG_RUNTIME_DIR"} -maxdepth 1 -name 'cli-sandbox-gateway.*' 2>/dev/null | wc -l)
		refused=$(tokenless_status "$SBNET" "$gwip")
	fi
	touch "$ws/inspected"
	wait $run
	t "$what: the sandbox ran" [ -n "$sb" ]
	t "$what: /workspace written as uid 1000" [ "$(cat "$ws/uid" 2>/dev/null)" = 1000 ]
	t "$what: the tool result reached the model" grep -q '^TOOL_RESULT .*uid=1000' "$log"
	if [ "$lname" != olc ] && [ "$lname" != olr ]; then  # the two Ollamas take no key
		t "$what: the upstream saw the key" sh -c 'grep "^HEADERS" "$1" | grep -qF "$2"' sh "$log" "$KEY"
	fi
	if [ "$path" != direct ]; then
		t "$what: the key broker ran beside it" [ -n "$br" ]
		t "$what: the sandbox is on the broker's network alone" [ "$sbnets" = "$BRNET " ]
		t "$what: no process in the sandbox has the key in its environment" [ "$env_hits" = 0 ]
		te "$what: the CLI has the run's token instead" '[ "$tok_hits" != 0 ] && [ "$tok_hits" != x ]'
		t "$what: no file under its home, /workspace or /tmp holds the key" [ "$file_hits" = 0 ]
		t "$what: the broker's network is removed after the run" not_exists "$BRNET"
	fi
	if [ "$path" = gateway ]; then
		t "$what: the gateway ran beside it" [ -n "$gw" ]
		t "$what: a request to the gateway without the run's token is refused (401)" [ "$refused" = 401 ]
		t "$what: the key is not in the gateway's inspect (no -e of its value)" [ "$gw_inspect_hits" = 0 ]
		t "$what: the gateway's secrets file is gone once it answers" [ "$secrets_left" = 0 ]
		t "$what: the sandbox's network is removed after the run" not_exists "$SBNET"
	fi
	t "$what: nothing left running after the run" [ "$(leftovers)" = 0 ]
	sed 's/^/#   /' "$WORK/run.out" | tail -n 3
}

agent claude up1 up gateway
agent pi up1 up gateway
agent claude olc olc gateway
agent pi olc olc gateway
agent claude ant ant broker
agent pi ant ant broker
agent codex ant ant broker
agent claude ant ant broker --keep-keys-out
# An OpenAI endpoint with Responses too: claude through the gateway (Chat Completions up),
# codex direct; a recent Ollama with Responses: codex direct, claude through the gateway.
agent claude oai ant gateway
agent codex oai ant broker
# ... with the person's own OpenAI key in the shell: it must not go to a server that takes none.
export OPENAI_API_KEY="$KEY"
agent codex olr olr direct
unset OPENAI_API_KEY
t "codex x olr: the person's OpenAI key did not reach the keyless Ollama" sh -c '! grep -qF "$1" "$2"' sh "$KEY" "$WORK/log/olr.log"
t "codex x olr: codex sent Ollama's placeholder key instead" sh -c 'grep "^HEADERS [A-Z]* /v1/responses" "$1" | grep -q "Bearer ollama"' sh "$WORK/log/olr.log"
grep "^HEADERS" "$WORK/log/olr.log" | cut -c1-160 | sed 's/^/#   /' | head -n 3
agent claude olr olr gateway

(cd "$WORK" && $CS --endpoint olc codex -- exec hi </dev/null >"$WORK/codex2.out" 2>&1)
rc=$?
te "codex against an Ollama without /v1/responses is refused (non-zero), naming what works" '[ $rc -ne 0 ] && grep -q "run claude or pi" "$WORK/codex2.out"'

# codex: Responses is not served by the upstream nor by the gateway: refused before start.
(cd "$WORK" && $CS --endpoint up1 codex -- exec hi </dev/null >"$WORK/codex.out" 2>&1)
rc=$?
t "codex against a Chat-Completions-only endpoint is refused (non-zero)" [ $rc -ne 0 ]
t "... naming what works" grep -q 'codex needs the OpenAI Responses API.*run claude or pi' "$WORK/codex.out"
te "... with nothing started" '[ "$(leftovers)" = 0 ] && ! podman network exists "$SBNET"'

# --dry-run: the commands, never the key.
(cd "$WORK/ws-claude-up1" && $CS --endpoint up1 --dry-run claude >"$WORK/dry.out" 2>&1)
t "--dry-run through the gateway prints the gateway and the sandbox" grep -q 'cli-sandbox-gateway\|claude-code-router' "$WORK/dry.out"
te "--dry-run does not hold the key" '! grep -qF "$KEY" "$WORK/dry.out"' 
te "--dry-run started nothing" '[ "$(leftovers)" = 0 ] && ! podman network exists "$SBNET"'

# ping: a tool-calling model, and one that answers the tool request in text.
(cd "$WORK" && timeout 180 $CS --endpoint oll ping --cli claude >"$WORK/ping1.out" 2>&1)
rc=$?
te "ping via the gateway, tool-calling model: READY, exit 0" '[ $rc -eq 0 ] && grep -q '\''^READY'\'' "$WORK/ping1.out"'
t "ping reports the Ollama load time and cold/loaded" grep -q 'load [0-9]* ms, \(cold\|loaded\)' "$WORK/ping1.out"
sed 's/^/#   /' "$WORK/ping1.out"
(cd "$WORK" && timeout 180 $CS --endpoint oll-text ping --cli pi --json >"$WORK/ping2.out" 2>&1)
rc=$?
te "ping, a model that answers in text: NOT OK, non-zero" '[ $rc -ne 0 ] && grep -q '\''"ready":false'\'' "$WORK/ping2.out"'
t "... with the hint to pick a tool-calling model" grep -q 'pick a model that calls tools' "$WORK/ping2.out"
# ping takes a run's path (issue 32, item 10). Translating, the direct check runs in the
# router's container, with the key the router holds (the upstream requires it; the container's
# config does not have it), and the sandbox's check goes through the key broker to the router.
(cd "$WORK" && timeout 180 $CS --endpoint up1 ping --cli claude --no-tools --json >"$WORK/ping-key.out" 2>&1)
t "ping through the translator: the direct check from the router authenticates with the key it holds" grep -q '"check":"direct","ok":true' "$WORK/ping-key.out"
t "... and the sandbox's, through the key broker and the router, is answered" grep -q '"path":"translator".*"check":"broker","ok":true' "$WORK/ping-key.out"
# A keyed endpoint that speaks Messages: through the key broker, as a run of claude goes.
(cd "$WORK" && timeout 180 $CS --endpoint ant ping --cli claude --no-tools --json >"$WORK/ping-ant.out" 2>&1)
t "ping to a keyed endpoint: through the key broker, which alone holds the key" grep -q '"path":"broker".*"check":"broker","ok":true' "$WORK/ping-ant.out"
te "ping's output does not hold the key" '! grep -qF "$KEY" "$WORK/ping-key.out" "$WORK/ping-ant.out"'
t "ping left nothing running" [ "$(leftovers)" = 0 ]
sed 's/^/#   /' "$WORK/ping-key.out" "$WORK/ping-ant.out"

# status before and after up, then down.
(cd "$WORK" && $CS --endpoint oll status --json >"$WORK/st1.out" 2>/dev/null)
t "status --json before up: the gateway is not running" grep -q '"running":false' "$WORK/st1.out"
(cd "$WORK" && timeout 120 $CS --endpoint oll up >"$WORK/up.out" 2>&1)
rc=$?
te "up starts a long-lived gateway, and the key broker in front of it" '[ $rc -eq 0 ] && podman ps --format '\''{{.Names}}'\'' | grep -qx cli-sandbox-gw-oll && podman ps --format '\''{{.Names}}'\'' | grep -qx cli-sandbox-broker-oll'
(cd "$WORK" && $CS --endpoint oll status --json >"$WORK/st2.out" 2>/dev/null)
t "status --json after up: the gateway is running" grep -q '"running":true' "$WORK/st2.out"
(cd "$WORK" && timeout 180 $CS --endpoint oll ping --cli claude >"$WORK/ping3.out" 2>&1)
te "ping uses what up started (it joins up's broker, behind which up's router runs)" 'grep -q '\''^READY (claude via translator to oll)'\'' "$WORK/ping3.out" && [ "$(leftovers)" = 0 ]'
# A peer on the sandbox's network (up's broker's, which ping's sandbox joins) that answers, but
# that the firewall does not allow: ping through the CLI's firewall to it is NOT OK, with the
# firewall's refusal; the same peer answers a container without the firewall.
podman run -d --name "$PEER" $LIMITS --network cli-sandbox-broker-oll -v "$HERE:/gw:ro" "$PYIMAGE" python3 /gw/mock_gateway.py \
	--listen 0.0.0.0 --port 3456 --max-seconds 300 >/dev/null
peerip=$(podman inspect -f "{{(index .NetworkSettings.Networks \"cli-sandbox-broker-oll\").IPAddress}}" "$PEER")
sleep 1
answer=$(podman run --rm $LIMITS --network cli-sandbox-broker-oll "$PYIMAGE" python3 -c 'import sys, urllib.request; print(urllib.request.urlopen("http://%s:3456/health" % sys.argv[1], timeout=10).status)' "$peerip" 2>&1)
t "the peer answers a container without the firewall" [ "$answer" = 200 ]
(cd "$WORK" && CLI_SANDBOX_PING_TARGET=http://$peerip:3456 timeout 180 $CS --endpoint oll ping --cli claude >"$WORK/ping4.out" 2>&1)
rc=$?
te "ping where the firewall does not let the CLI through: NOT OK, non-zero" '[ $rc -ne 0 ] && grep -q "^NOT OK" "$WORK/ping4.out"'
sed 's/^/#   /' "$WORK/ping4.out"
podman rm -f "$PEER" >/dev/null 2>&1
(cd "$WORK" && $CS --endpoint oll down >/dev/null 2>&1)
te "down stops both and removes their networks" '! podman ps -a --format "{{.Names}}" | grep -qx -e cli-sandbox-gw-oll -e cli-sandbox-broker-oll && ! podman network exists cli-sandbox-gw-oll && ! podman network exists cli-sandbox-broker-oll' 
sed "s/^/#   /" "$WORK/st1.out" "$WORK/st2.out" "$WORK/ping2.out"
t_done
