#!/bin/sh
# gemini end to end through the key broker, keys out (issue 32, item 4; docs/broker.md "In a
# run"): the real gemini CLI (REPOSITORY:gemini) run as a person runs the README's quick start,
# `cli-sandbox --managed URL gemini -p ...` with GEMINI_API_KEY exported in the shell only,
# against a mock Gemini API server (tests/gateway/mock_gateway.py --speaks gemini: POST
# /v1beta/models/M:generateContent and :streamGenerateContent?alt=sse, functionCall turns) on an
# internal network that only the broker joins. Judged by what the mock saw and by what the
# agent did, never by gemini's exit status:
#   - the mock: gemini's turns arrived (streamGenerateContent?alt=sse), every request with the
#     key in x-goog-api-key and only there (no Authorization, no x-api-key, no ?key=), never a
#     run token; the tool's output came back to it (a functionResponse);
#   - the agent: the mock's functionCall ran in the sandbox and wrote a file in /workspace, as
#     uid 1000;
#   - the sandbox, while the tool waited: gemini's GEMINI_API_KEY is a run token (csbt_...), the
#     key in no process's environment, no file under /run /tmp /home /workspace /etc, no
#     inspect (sandbox, broker); the sandbox is on the broker's network alone and cannot reach
#     the mock; the key in no command line on this host;
#   - after the run: no broker, no network, no broker directory left.
# Networks (this test's, both --internal): upstream 198.51.100.32/29 (the mock .34), the
# sandbox's 198.51.100.40/29.
# usage: sh tests/broker/gemini.sh   (root, podman; takes the engine lock itself; images:
#   REPOSITORY:gemini and REPOSITORY-broker:latest, REPOSITORY from CLI_SANDBOX_TEST_IMAGE_BASE,
#   default localhost/cli-sandbox; CLI_SANDBOX_BROKER_IMAGE names another broker image)
# shellcheck disable=SC2016,SC1091,SC2034 # $VARS for inner shells (te evals); tap.sh by its path
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
LOCK=${CLI_SANDBOX_ENGINE_LOCK:-/tmp/cli-sandbox-engine.lock}
if [ -z "${KBGEM_LOCKED:-}" ] && command -v flock >/dev/null 2>&1; then
	KBGEM_LOCKED=1 exec flock "$LOCK" sh "$0" "$@"
fi
. "$ROOT/tests/lib/tap.sh"
E=podman
LIMITS="--runtime runc --ulimit nofile=1024:1024 --ulimit nproc=1000:1000"
BASEIMG=${CLI_SANDBOX_TEST_IMAGE_BASE:-localhost/cli-sandbox}
IMAGE=$BASEIMG:gemini
BIMAGE=${CLI_SANDBOX_BROKER_IMAGE:-$BASEIMG-broker:latest}
TAG=kbgem$$
UPNET=cli-sandbox-kbgem-up-$$ SBNET=cli-sandbox-kbgem-sb-$$
MOCKIP=198.51.100.34
WORK=$(mktemp -d /tmp/cli-sandbox-kbgem.XXXXXX)
chmod 755 "$WORK"

cleanup() {
	for c in $("$E" ps -aq --filter "name=$TAG" 2>/dev/null) $("$E" ps -aq --filter "network=$UPNET" 2>/dev/null) \
		$("$E" ps -aq --filter "network=$SBNET" 2>/dev/null); do
		"$E" rm -f "$c" >/dev/null 2>&1
	done
	for n in "$SBNET" "$UPNET"; do "$E" network rm "$n" >/dev/null 2>&1; done
	case ${XDG_RUNTIME_DIR:-} in /dev/shm/cs-kbgem.*) rm -rf "$XDG_RUNTIME_DIR" ;; esac
	[ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

[ "$(id -u)" -eq 0 ] || { echo "Bail out! run as root"; exit 1; }
for i in "$IMAGE" "$BIMAGE"; do
	podman image exists "$i" || { echo "1..0 # SKIP no image $i (image/build.sh --cli gemini|broker)"; exit 0; }
done

# The person's shell: the key exported there and nowhere else; only the test's plumbing (the
# engine's rlimits and runtime, the networks' names and subnets) in CLI_SANDBOX_* variables.
KEY=gm-kbgem-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
export CLI_SANDBOX_HOME="$WORK/conf" CLI_SANDBOX_ENGINE="$E" CLI_SANDBOX_IMAGE="$BASEIMG:latest"
export CLI_SANDBOX_ENGINE_ARGS="$LIMITS" CLI_SANDBOX_BROKER_IMAGE="$BIMAGE"
export CLI_SANDBOX_BROKER_NETWORK=$SBNET CLI_SANDBOX_BROKER_SUBNET=198.51.100.40/29
export CLI_SANDBOX_BROKER_UPSTREAM_NETWORK=$UPNET
XDG_RUNTIME_DIR=$(mktemp -d /dev/shm/cs-kbgem.XXXXXX) && export XDG_RUNTIME_DIR
HOME=$WORK/home && mkdir -p "$HOME" && export HOME
unset ANTHROPIC_API_KEY ANTHROPIC_AUTH_TOKEN OPENAI_API_KEY CODEX_API_KEY GEMINI_API_KEY GOOGLE_API_KEY
mkdir -p "$WORK/log" "$WORK/ws" && chmod 777 "$WORK/log" && chown 1000:1000 "$WORK/ws"

"$E" network create --internal --subnet 198.51.100.32/29 "$UPNET" >/dev/null || { echo "Bail out! network"; exit 1; }
# The mock's functionCall: a file in /workspace, then wait (20 s at most) while the test looks
# at the sandbox, then a line the mock logs as the tool's result.
TOOL='id -u > /workspace/gemini-wrote.txt; i=0; while [ ! -e /workspace/inspected ] && [ $i -lt 100 ]; do sleep 0.2; i=$((i + 1)); done; echo "GEMINI-TOOL uid=$(id -u)"'
# shellcheck disable=SC2086 # LIMITS is a list of words
"$E" run -d --name "$TAG-mock" $LIMITS --network "$UPNET" --ip "$MOCKIP" --entrypoint python3 --user 65534:65534 \
	-v "$ROOT/tests/gateway:/gw:ro" -v "$WORK/log:/log" "$IMAGE" /gw/mock_gateway.py --listen 0.0.0.0 --port 8080 \
	--speaks gemini --log /log/mock.log --max-seconds 600 --tool-command "$TOOL" >/dev/null ||
	{ echo "Bail out! the mock did not start"; exit 1; }
MOCKLOG=$WORK/log/mock.log

t() { _d=$1; shift; if "$@"; then t_pass "$_d"; else t_fail "$_d"; fi; }
te() { _d=$1; shift; if eval "$*"; then t_pass "$_d"; else t_fail "$_d"; fi; }

(while [ ! -e "$WORK/ps.stop" ]; do ps -eo args >>"$WORK/ps"; sleep 0.1; done) &
WATCH=$!
T0=$(date +%s)
(cd "$WORK/ws" && GEMINI_API_KEY=$KEY timeout 240 sh "$ROOT/host/cli-sandbox" --managed "http://$MOCKIP:8080" \
	gemini -p "Run the check you are told to run." </dev/null >"$WORK/gemini.out" 2>&1) &
run=$!
i=0
while [ ! -s "$WORK/ws/gemini-wrote.txt" ] && [ $i -lt 1800 ] && kill -0 $run 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
sb=$("$E" ps -q --filter "network=$SBNET" --filter "ancestor=$IMAGE" | head -n 1)
br=$("$E" ps -q --filter "network=$SBNET" --filter label=io.cli-sandbox.role=broker | head -n 1)
env_key=x token='' insp_key=x files_key=x nets=x reach=x
if [ -n "$sb" ] && [ -n "$br" ]; then
	for u in 0 1000; do
		"$E" exec -u "$u" "$sb" sh -c 'for f in /proc/[0-9]*/environ; do tr "\0" "\n" <"$f"; echo; done 2>/dev/null'
	done >"$WORK/environ"
	env_key=$(grep -cF "$KEY" "$WORK/environ")
	token=$(sed -n 's/^GEMINI_API_KEY=\(csbt_[0-9a-f]\{64\}\)$/\1/p' "$WORK/environ" | head -n 1)
	"$E" inspect "$sb" "$br" >"$WORK/insp" 2>&1
	insp_key=$(grep -cF "$KEY" "$WORK/insp")
	# the key goes on stdin, never in a command line (the test looks there too)
	files_key=$(printf '%s\n' "$KEY" | "$E" exec -i -u 0 "$sb" sh -c 'grep -rlF -f /dev/stdin /run /tmp /home /workspace /etc 2>/dev/null | wc -l')
	nets=$("$E" inspect -f '{{range $k, $v := .NetworkSettings.Networks}}{{$k}} {{end}}' "$sb")
	reach=$("$E" exec -u 1000 "$sb" python3 -c '
import socket, sys
s = socket.socket(); s.settimeout(5)
try: s.connect((sys.argv[1], 8080)); print("open")
except Exception: print("refused")' "$MOCKIP" 2>&1)
fi
touch "$WORK/ws/inspected"
wait $run
rc=$?
T1=$(date +%s)
touch "$WORK/ps.stop"
wait "$WATCH"
tail -n 5 "$WORK/gemini.out" | t_note
grep -E '^(POST|GET|TOOL_)' "$MOCKLOG" 2>/dev/null | cut -c1-160 | head -n 8 | t_note
echo "# gemini exited $rc after $((T1 - T0)) s (not judged)"

# What the mock saw.
grep '^HEADERS ' "$MOCKLOG" >"$WORK/headers" 2>/dev/null
te "the mock got gemini's streamed turn (POST .../models/M:streamGenerateContent?alt=sse)" \
	'grep -qE "^HEADERS POST /v1beta/models/[^ ]+:streamGenerateContent\?alt=sse " "$WORK/headers"'
te "every request at the mock carried the key in x-goog-api-key" \
	'[ -s "$WORK/headers" ] && ! grep -viF "\"x-goog-api-key\": \"$KEY\"" "$WORK/headers" | grep -q .'
te "... and nowhere else: no Authorization, no x-api-key, no ?key= in a path" \
	'! grep -qiE "\"(authorization|x-api-key)\": \"[^\"]" "$WORK/headers" && ! grep -qE "^(HEADERS )?[A-Z]+ [^ ]*[?&]key=" "$MOCKLOG"'
te "the mock never saw a run token" '[ -s "$MOCKLOG" ] && ! grep -q csbt_ "$MOCKLOG"'
te "the tool's output came back to the mock (a functionResponse)" 'grep -q "^TOOL_RESULT .*GEMINI-TOOL uid=1000" "$MOCKLOG"'
# What the agent did.
t "the mock's functionCall ran in the sandbox: /workspace/gemini-wrote.txt written as uid 1000" \
	[ "$(stat -c %u "$WORK/ws/gemini-wrote.txt" 2>/dev/null):$(cat "$WORK/ws/gemini-wrote.txt" 2>/dev/null)" = "1000:1000" ]
# What the sandbox had.
te "the sandbox ran beside a broker" '[ -n "$sb" ] && [ -n "$br" ]'
te "gemini's GEMINI_API_KEY in the sandbox is a run token (csbt_...)" '[ -n "$token" ]'
t "no process in the sandbox has the key in its environment" [ "$env_key" = 0 ]
t "no file under the sandbox's /run /tmp /home /workspace /etc holds it" [ "$files_key" = 0 ]
t "the key is in no inspect (sandbox, broker)" [ "$insp_key" = 0 ]
te "the key and the token are in no command line on this host" \
	'[ -s "$WORK/ps" ] && ! grep -v mock_gateway.py "$WORK/ps" | grep -qF -e "$KEY" -e "${token:-x}"'
t "the sandbox is on the broker's network alone" [ "$nets" = "$SBNET " ]
t "the sandbox cannot reach the mock (only the broker can)" [ "$reach" = refused ]
# After the run.
te "after the run: no broker left, its network removed" \
	'[ -z "$("$E" ps -aq --filter label=io.cli-sandbox.role=broker --filter "network=$SBNET")" ] && ! "$E" network exists "$SBNET"'
te "... its directory (the key, the token's file) removed" '[ -z "$(ls -A "$XDG_RUNTIME_DIR")" ]'
t_done
