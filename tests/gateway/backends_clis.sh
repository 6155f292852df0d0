#!/bin/sh
# Switchable backends for opencode and gemini with podman (issue 21, after issue 22 added the
# two CLIs): the real opencode image, the real gateway image, mock upstreams
# (tests/gateway/mock_gateway.py) in one container on an internal test network, host/cli-sandbox
# run as a person runs it (the key exported in the shell, nothing passed through engine
# arguments but this machine's runc and limits). The sibling of tests/gateway/backends.sh
# (claude, pi, codex). Since issue 32 (keys out by default), every keyed run goes through the key
# broker (the sandbox on its network alone, 198.51.100.200/29, the CLI with the run's token);
# --keep-keys-out changes nothing for a run, and no router runs for opencode. Below, "directly"
# means direct to the endpoint's API, through the broker where the endpoint takes a key.
#
#   - opencode against each endpoint type, directly (its own provider in
#     OPENCODE_CONFIG_CONTENT): an Anthropic provider (Messages), a Chat-Completions-only
#     server, an OpenAI provider that also speaks Responses (Chat Completions chosen), a
#     Responses-only server, an Ollama without a key (its /v1 Chat Completions); and with
#     --keep-keys-out through the gateway to the Chat-Completions-only server and to the
#     Anthropic provider. Each: the model's shell tool call runs through the managed firewall,
#     /workspace is written as uid 1000, the tool result reaches the upstream in the expected
#     API, the upstream saw the key (none for the Ollama). The key's value is in no `podman
#     inspect` of the sandbox, no command line on this host (the mock's own --require-key
#     aside), no file under the sandbox's home, /workspace or /tmp, and no --dry-run; on a
#     direct path only the provider's own variable holds it; through the gateway no process in
#     the sandbox has it, the CLI has the run's token, a request without the token is refused;
#     the credentials file and everything the run made are gone after it;
#   - ping --cli opencode direct and through the gateway: READY; ping --cli gemini refused;
#   - gemini against each endpoint type: refused before start, naming what works, with no
#     engine command that creates anything (a logging podman first in PATH), no network, no
#     credentials file.
# Networks: cli-sandbox-gwclis-up-PID (198.51.100.176/29, the upstreams) and
# cli-sandbox-gwclis-sb-PID (198.51.100.184/29, the sandbox and the gateway), both internal.
#
# usage: sh tests/gateway/backends_clis.sh   (root; images: CLI_SANDBOX_TEST_IMAGE, default
#   localhost/cli-sandbox:opencode; CLI_SANDBOX_GATEWAY_IMAGE, default
#   localhost/cli-sandbox-gateway:latest; CLI_SANDBOX_PYTHON_IMAGE, made if missing)
# shellcheck disable=SC2086,SC2034,SC2016 # word lists split on purpose; names used through eval
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
# shellcheck disable=SC1091  # tests/lib/tap.sh: the shared TAP helper
. "$ROOT/tests/lib/tap.sh"
# shellcheck source=tests/gateway/lib.sh
. "$ROOT/tests/gateway/lib.sh"
IMAGE=${CLI_SANDBOX_TEST_IMAGE:-localhost/cli-sandbox:opencode}
GWIMAGE=${CLI_SANDBOX_GATEWAY_IMAGE:-localhost/cli-sandbox-gateway:latest}
PYIMAGE=${CLI_SANDBOX_PYTHON_IMAGE:-localhost/cli-sandbox-python:test}
LIMITS="--runtime runc --ulimit nofile=1024:1024 --ulimit nproc=1000:1000"
UPNET=cli-sandbox-gwclis-up-$$ SBNET=cli-sandbox-gwclis-sb-$$ MOCK=cli-sandbox-gwclis-mock-$$ BRNET=cli-sandbox-gwclis-br-$$
MOCKIP=198.51.100.178
WORK=$(mktemp -d /tmp/cli-sandbox-gwclis-test.XXXXXX)
chmod 755 "$WORK"
XDG=$WORK/xdg

cleanup() {
	for c in "$MOCK" $(podman ps -aq --filter "network=$SBNET" 2>/dev/null) $(podman ps -aq --filter "network=$UPNET" 2>/dev/null) \
		$(podman ps -aq --filter "network=$BRNET" 2>/dev/null); do
		podman rm -f "$c" >/dev/null 2>&1
	done
	for n in "$BRNET" "$SBNET" "$UPNET"; do podman network rm "$n" >/dev/null 2>&1; done
	umount "$XDG" 2>/dev/null
	[ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

[ "$(id -u)" -eq 0 ] || { echo "Bail out! run as root"; exit 1; }
podman image exists "$IMAGE" || { echo "Bail out! no image $IMAGE (image/build.sh --cli opencode)"; exit 1; }
podman image exists "$GWIMAGE" || { echo "Bail out! no gateway image $GWIMAGE (image/build.sh --cli gateway)"; exit 1; }
sh "$HERE/make-python-image.sh" "$PYIMAGE" || { echo "Bail out! cannot make $PYIMAGE"; exit 1; }
# The credentials file goes to XDG_RUNTIME_DIR when it is memory-backed: a tmpfs of this
# test's own, so that what a run leaves there (or a refused run makes) is seen.
mkdir -p "$XDG" || exit 1
mount -t tmpfs -o size=1m,mode=0700 tmpfs "$XDG" || { echo "Bail out! tmpfs"; exit 1; }

KEY=sk-test-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
export CLI_SANDBOX_TEST_KEY=$KEY XDG_RUNTIME_DIR=$XDG
export CLI_SANDBOX_HOME=$WORK/conf CLI_SANDBOX_ENGINE=podman CLI_SANDBOX_IMAGE=$IMAGE
export CLI_SANDBOX_GATEWAY_IMAGE=$GWIMAGE CLI_SANDBOX_ENGINE_ARGS=$LIMITS
export CLI_SANDBOX_GATEWAY_UPSTREAM_NETWORK=$UPNET CLI_SANDBOX_GATEWAY_NETWORK=$SBNET
export CLI_SANDBOX_GATEWAY_SUBNET=198.51.100.184/29
# Keys out by default (issue 32): a keyed endpoint is reached through the key broker, the
# sandbox on its network alone (198.51.100.200/29); opencode speaks every API itself, so no
# router runs for it.
export CLI_SANDBOX_BROKER_NETWORK=$BRNET CLI_SANDBOX_BROKER_SUBNET=198.51.100.200/29
HOME=$WORK/home && mkdir -p "$HOME" && export HOME
CS="sh $ROOT/host/cli-sandbox"
mkdir -p "$WORK/log" && chmod 777 "$WORK/log"

podman network create --internal --subnet 198.51.100.176/29 "$UPNET" >/dev/null || { echo "Bail out! network"; exit 1; }
# The tool command: writes its uid, then waits (at most 40 s) until the test has inspected the
# sandbox and says so with /workspace/inspected.
CMD='id -u > /workspace/uid; i=0; while [ ! -e /workspace/inspected ] && [ $i -lt 200 ]; do sleep 0.2; i=$((i + 1)); done; echo "uid=$(id -u)"'
# One container, four upstreams: Chat Completions only (8080), a provider's own API that
# speaks Messages, Chat Completions and Responses (8081), Responses only (8082), an Ollama
# with a tool-calling model and no key (11434). All scripted with the tool command.
M="python3 /gw/mock_gateway.py --listen 0.0.0.0 --max-seconds 900"
podman run -d --name "$MOCK" $LIMITS --network "$UPNET" --ip "$MOCKIP" -v "$HERE:/gw:ro" -v "$WORK/log:/log" \
	-e "KEY=$KEY" -e "CMD=$CMD" "$PYIMAGE" sh -c "
	$M --port 8080 --speaks chat --require-key \"\$KEY\" --tool-command \"\$CMD\" --log /log/chat.log &
	$M --port 8081 --speaks anthropic,chat,responses --require-key \"\$KEY\" --tool-command \"\$CMD\" --log /log/prov.log &
	$M --port 8082 --speaks responses --require-key \"\$KEY\" --tool-command \"\$CMD\" --log /log/resp.log &
	$M --port 11434 --speaks ollama,chat --models mock-model+tools --tool-command \"\$CMD\" --log /log/oll.log &
	wait" >/dev/null || { echo "Bail out! mock upstreams"; exit 1; }

$CS endpoints add chat http://$MOCKIP:8080/v1 --type openai --model mock-model --key-env CLI_SANDBOX_TEST_KEY --no-probe >/dev/null
$CS endpoints add ant http://$MOCKIP:8081 --type anthropic --speaks anthropic,chat,responses --model mock-model --key-env CLI_SANDBOX_TEST_KEY >/dev/null
$CS endpoints add oai http://$MOCKIP:8081/v1 --type openai --speaks chat,responses --model mock-model --key-env CLI_SANDBOX_TEST_KEY >/dev/null
$CS endpoints add resp http://$MOCKIP:8082/v1 --type openai --speaks responses --model mock-model --key-env CLI_SANDBOX_TEST_KEY >/dev/null
$CS endpoints add oll http://$MOCKIP:11434 --type ollama --model mock-model --no-probe >/dev/null

t() { _d=$1; shift; if "$@"; then t_pass "$_d"; else t_fail "$_d"; fi; }
te() { _d=$1; shift; if eval "$*"; then t_pass "$_d"; else t_fail "$_d"; fi; }
not_exists() { ! podman network exists "$1"; }
leftovers() { podman ps -a --format '{{.Names}}' | grep -c -e '^cli-sandbox-gw-run-' -e '^cli-sandbox-broker-run-'; }
xdg_empty() { [ -z "$(ls -A "$XDG")" ]; }
# host_cmdlines_with_key: command lines on this host that hold the key, the mock's own aside
# shellcheck disable=SC2009 # every process's command line, not a name
host_cmdlines_with_key() { ps -eo args | grep -F "$KEY" | grep -cv -e mock_gateway.py -e 'grep -F'; }
mock_up() { podman exec "$MOCK" python3 -c 'import socket; [socket.create_connection(("127.0.0.1", p), 2).close() for p in (8080, 8081, 8082, 11434)]' 2>/dev/null; }
i=0; while ! mock_up && [ $i -lt 50 ]; do sleep 0.2; i=$((i + 1)); done

# agent ENDPOINT LOG PATH API KEYVAR [OPTION]: one opencode run in the background (PATH broker:
# the key broker holds the key, KEYVAR holds the run's token; or direct; API the upstream's wire format in the mock's TOOL_CALL line; KEYVAR the variable
# that holds the key in the sandbox on a direct path, '-' none); while the tool sleeps, inspect
# the sandbox. A direct run's sandbox is put on the upstreams' network (what a person's
# default network is to their server).
agent() {
	ep=$1 lname=$2 log=$WORK/log/$2.log path=$3 api=$4 keyvar=$5 opt=${6:-}
	what="opencode x $ep ($path${opt:+ $opt})"
	ws=$WORK/ws-$ep$opt
	mkdir -p "$ws" && chown 1000:1000 "$ws"
	: >"$log"
	net=$BRNET extra=$LIMITS
	[ "$path" = broker ] || { net=$UPNET extra="$LIMITS --network $UPNET"; }
	(cd "$ws" && CLI_SANDBOX_ENGINE_ARGS=$extra timeout 240 $CS --endpoint "$ep" $opt opencode -- run "run the command" </dev/null >"$WORK/run.out" 2>&1) &
	run=$!
	i=0
	while [ ! -s "$ws/uid" ] && [ $i -lt 1200 ] && kill -0 $run 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
	sb=$(podman ps -q --filter "network=$net" --filter "ancestor=$(podman image inspect -f '{{.Id}}' "$IMAGE")" | head -n 1)
	br=$(podman ps -q --filter "network=$BRNET" --filter label=io.cli-sandbox.role=broker | head -n 1)
	sbnets=$([ -z "$sb" ] || podman inspect -f '{{range $k, $v := .NetworkSettings.Networks}}{{$k}} {{end}}' "$sb")
	env_hits=x other_hits=x tok_hits=x file_hits=x inspect_hits=x keyvars=x refused=x config=no
	cmd_hits=$(host_cmdlines_with_key)
	if [ -n "$sb" ]; then
		podman exec --privileged -u 0 "$sb" sh -c 'for f in /proc/[0-9]*/environ; do tr "\0" "\n" <"$f"; echo; done 2>/dev/null' >"$WORK/environ"
		env_hits=$(grep -cF "$KEY" "$WORK/environ")
		other_hits=$(grep -F "$KEY" "$WORK/environ" | grep -cv "^$keyvar=")
		keyvars=$(grep -c '_API_KEY=' "$WORK/environ")
		tok_hits=$(grep -c "^$keyvar=csbt_[0-9a-f]\{64\}\$" "$WORK/environ")
		file_hits=$(podman exec --privileged -u 0 "$sb" sh -c 'grep -rlF "$0" /home/node /workspace /tmp 2>/dev/null | wc -l' "$KEY")
		inspect_hits=$(podman inspect "$sb" | grep -cF "$KEY")
		grep -q '^OPENCODE_CONFIG_CONTENT=.*"cli-sandbox/mock-model"' "$WORK/environ" && config=yes || config=no
	fi
	touch "$ws/inspected"
	wait $run
	t "$what: the sandbox ran" [ -n "$sb" ]
	t "$what: opencode got its provider and model (OPENCODE_CONFIG_CONTENT)" [ "${config:-no}" = yes ]
	t "$what: /workspace written as uid 1000" [ "$(cat "$ws/uid" 2>/dev/null)" = 1000 ]
	t "$what: the tool call went out in the $api API" grep -q "^TOOL_CALL $api " "$log"
	t "$what: the tool result reached the model" grep -q '^TOOL_RESULT .*uid=1000' "$log"
	if [ "$keyvar" != - ]; then
		t "$what: the upstream saw the key" sh -c 'grep "^HEADERS" "$1" | grep -qF "$2"' sh "$log" "$KEY"
	fi
	t "$what: the key is not in the sandbox's inspect output" [ "$inspect_hits" = 0 ]
	t "$what: the key is in no command line on this host" [ "$cmd_hits" = 0 ]
	t "$what: no file under its home, /workspace or /tmp holds the key" [ "$file_hits" = 0 ]
	if [ "$path" = broker ]; then
		t "$what: the key broker ran beside it" [ -n "$br" ]
		t "$what: the sandbox is on the broker's network alone" [ "$sbnets" = "$BRNET " ]
		t "$what: no process in the sandbox has the key in its environment" [ "$env_hits" = 0 ]
		te "$what: the CLI has the run's token in $keyvar instead" '[ "$tok_hits" != 0 ] && [ "$tok_hits" != x ]'
		t "$what: the broker's network is removed after the run" not_exists "$BRNET"
	else
		t "$what: no key variable at all in the sandbox (the endpoint needs none)" [ "$keyvars" = 0 ]
	fi
	t "$what: the credentials file is removed after the run" xdg_empty
	t "$what: nothing left running after the run" [ "$(leftovers)" = 0 ]
	sed 's/^/#   /' "$WORK/run.out" | tail -n 3
}

agent ant prov broker anthropic ANTHROPIC_API_KEY
agent chat chat broker chat OPENAI_API_KEY
agent oai prov broker chat OPENAI_API_KEY
agent resp resp broker responses OPENAI_API_KEY
agent oll oll direct chat -
# --keep-keys-out: the default now, the same path
agent chat chat broker chat OPENAI_API_KEY --keep-keys-out

# ping on opencode's path, a run's: keys out, through the key broker (which alone holds the key);
# with --keys-in, direct to the Chat Completions upstream (its sandbox on the upstream's network,
# as a direct run's); gemini refused with the reason.
# --no-tools: these mocks script a shell tool call, not ping's own tool (the tool check is
# backends.sh's, against a mock that calls any tool it is offered).
(cd "$WORK/ws-chat" && timeout 180 $CS --endpoint chat ping --cli opencode --no-tools >"$WORK/ping-oc.out" 2>&1)
rc=$?
te "ping --cli opencode, keys out: through the key broker, as a run: READY, exit 0" '[ $rc -eq 0 ] && grep -q "^READY (opencode via broker to chat)" "$WORK/ping-oc.out" && grep -q "^ok *broker" "$WORK/ping-oc.out"'
sed 's/^/#   /' "$WORK/ping-oc.out"
(cd "$WORK/ws-chat" && CLI_SANDBOX_ENGINE_ARGS="$LIMITS --network $UPNET" timeout 180 $CS --endpoint chat --keys-in ping --cli opencode --no-tools >"$WORK/ping-ocin.out" 2>&1)
rc=$?
te "ping --cli opencode --keys-in: direct (Chat Completions), the key inside, as a run: READY, exit 0" '[ $rc -eq 0 ] && grep -q "^READY (opencode via direct to chat)" "$WORK/ping-ocin.out" && grep -q "^ok *direct" "$WORK/ping-ocin.out"'
sed 's/^/#   /' "$WORK/ping-ocin.out"
te "... its output does not hold the key, nothing left running" '! grep -qF "$KEY" "$WORK/ping-oc.out" "$WORK/ping-ocin.out" && [ "$(leftovers)" = 0 ]'
(cd "$WORK/ws-chat" && timeout 60 $CS --endpoint chat ping --cli gemini >"$WORK/ping-gem.out" 2>&1)
rc=$?
te "ping --cli gemini: refused (non-zero) with the reason" '[ $rc -ne 0 ] && grep -q "gemini speaks only" "$WORK/ping-gem.out"'

# --dry-run, direct and through the gateway: the commands, never the key.
for a in "ant" "chat --keep-keys-out"; do
	(cd "$WORK/ws-ant" && $CS --endpoint $a --dry-run opencode -- run hi >"$WORK/dry.out" 2>&1)
	rc=$?
	te "--dry-run opencode --endpoint $a: prints the plan, exit 0" '[ $rc -eq 0 ] && grep -q OPENCODE_CONFIG_CONTENT "$WORK/dry.out"'
	te "... does not hold the key" '! grep -qF "$KEY" "$WORK/dry.out"'
	te "... started nothing, made no credentials file" '[ "$(leftovers)" = 0 ] && ! podman network exists "$SBNET" && xdg_empty'
done
# --keep-keys-out against a Responses-only server: once refused (no gateway path), now the key
# broker's path like every keyed one (a dry run).
mkdir -p "$WORK/ws-refused"
(cd "$WORK/ws-refused" && $CS --endpoint resp --keep-keys-out --dry-run opencode -- run hi </dev/null >"$WORK/oc-refused.out" 2>&1)
rc=$?
te "opencode --keep-keys-out against a Responses-only endpoint: through the key broker (a dry run)" '[ $rc -eq 0 ] && grep -q "^# the key broker beside the sandbox" "$WORK/oc-refused.out" && grep -q "OPENAI_API_KEY = RUN-TOKEN" "$WORK/oc-refused.out"'

# gemini: no endpoint type speaks the Gemini API, and the gateway does not take it inbound.
# A logging podman first in PATH records every engine command the host script runs.
mkdir -p "$WORK/bin"
real_podman=$(command -v podman)
cat >"$WORK/bin/podman" <<EOF
#!/bin/sh
printf '%s\n' "\$*" >>"$WORK/engine.log"
exec "$real_podman" "\$@"
EOF
chmod 755 "$WORK/bin/podman"
for ep in ant chat oai resp oll; do
	: >"$WORK/engine.log"
	(cd "$WORK/ws-refused" && PATH=$WORK/bin:$PATH CLI_SANDBOX_IMAGE=${IMAGE%:*}:gemini $CS --endpoint "$ep" gemini -- -p "run the command" </dev/null >"$WORK/gemini.out" 2>&1)
	rc=$?
	te "gemini x $ep: refused before start (non-zero), naming what works" '[ $rc -ne 0 ] && grep -q "gemini speaks only Google'\''s Gemini API.*run [a-z, ]*opencode against $ep," "$WORK/gemini.out"'
	te "gemini x $ep: no engine command that creates anything" '! grep -qE "^(run|create|network create|network connect)( |$)" "$WORK/engine.log"'
	te "gemini x $ep: no network, no container, no credentials file" '! podman network exists "$SBNET" && [ "$(leftovers)" = 0 ] && xdg_empty'
	te "gemini x $ep: the key is not in its output" '! grep -qF "$KEY" "$WORK/gemini.out"'
done
sed 's/^/#   /' "$WORK/gemini.out"
# The logging podman does log (a run's image is looked up: the CLI's own next to :latest).
: >"$WORK/engine.log"
(cd "$WORK/ws-refused" && PATH=$WORK/bin:$PATH CLI_SANDBOX_IMAGE=${IMAGE%:*}:latest $CS --endpoint oll --dry-run opencode >/dev/null 2>&1)
t "the logging podman records the host script's engine commands" grep -q '^image inspect' "$WORK/engine.log"
# What the refusal names works: gemini with --managed URL (the URL as is, its key from the shell).
(cd "$WORK/ws-refused" && GEMINI_API_KEY=$KEY $CS --managed "http://$MOCKIP:8081" --dry-run gemini >"$WORK/gemini-managed.out" 2>&1)
rc=$?
# (its key exported: through the key broker, whose upstream is the URL; issue 32)
te "gemini --managed URL is planned (exit 0), through the key broker, the key not in its dry-run" '[ $rc -eq 0 ] && grep -q "TASK_AGENT_MODEL_BASE_URL=http://<broker-ip>:8080" "$WORK/gemini-managed.out" && grep -qF "gemini API, upstream http://$MOCKIP:8081," "$WORK/gemini-managed.out" && ! grep -qF "$KEY" "$WORK/gemini-managed.out"'
(cd "$WORK/ws-refused" && $CS --endpoint oll --dry-run gemini >"$WORK/gemini-dry.out" 2>&1)
rc=$?
te "gemini --dry-run is refused the same way" '[ $rc -ne 0 ] && grep -q "gemini speaks only" "$WORK/gemini-dry.out"'
t_done
