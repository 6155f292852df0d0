#!/bin/sh
# shellcheck disable=SC2154,SC2034 # PORT_* are set by serve, and rc read, through eval
# Endpoint probing and Ollama's models (issue 21), on loopback only: host/cli-sandbox as a
# person runs it, against tests/gateway/mock_gateway.py servers on 127.0.0.1 that speak one
# API each (an Ollama, a Chat-Completions-only server, an Anthropic one, a provider with all
# three), and a port where nothing listens. No engine is needed.
#
# usage: sh tests/gateway/endpoints_models.sh
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$ROOT/tests/lib/tap.sh"
WORK=$(mktemp -d /tmp/cli-sandbox-gw-ep.XXXXXX)
PIDS=''
cleanup() { for p in $PIDS; do kill "$p" 2>/dev/null; done; rm -rf "$WORK"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
export CLI_SANDBOX_HOME=$WORK/conf HOME=$WORK/home
mkdir -p "$HOME"
CS="sh $ROOT/host/cli-sandbox"
# t DESCRIPTION COMMAND...: one check; te DESCRIPTION 'SHELL EXPRESSION': one check of a compound.
t() { _d=$1; shift; if "$@"; then t_pass "$_d"; else t_fail "$_d"; fi; }
te() { _d=$1; shift; if eval "$*"; then t_pass "$_d"; else t_fail "$_d"; fi; }

# serve NAME ARGS...: start a mock on a free loopback port; sets PORT_NAME.
serve() {
	_n=$1; shift
	python3 "$HERE/mock_gateway.py" --listen 127.0.0.1 --port 0 --max-seconds 120 "$@" >"$WORK/$_n.port" 2>/dev/null &
	PIDS="$PIDS $!"
	i=0
	while ! grep -q listening "$WORK/$_n.port" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	eval "PORT_$_n=\$(awk '{ print \$NF }' \"\$WORK/\$_n.port\")"
}
serve oll --speaks ollama,chat --models qwen3:8b+tools,gemma:2b --pullable llama3.1:8b
serve chat --speaks chat
serve ant --speaks anthropic
serve all --speaks anthropic,chat,responses
# a port that was free a moment ago
dead=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')

$CS endpoints add oll "http://127.0.0.1:$PORT_oll" >"$WORK/out" 2>&1
t "probe: an Ollama is type ollama, speaks ollama and chat" grep -q 'type ollama, speaks chat,ollama$' "$WORK/out"
$CS endpoints add chat "http://127.0.0.1:$PORT_chat/v1" --model m --key-env SOME_KEY >"$WORK/out" 2>&1
t "probe: a Chat-Completions-only server is type openai, speaks chat" grep -q 'type openai, speaks chat, model m, key from \$SOME_KEY' "$WORK/out"
$CS endpoints add ant "http://127.0.0.1:$PORT_ant" >"$WORK/out" 2>&1
t "probe: an Anthropic server is type anthropic" grep -q 'type anthropic, speaks anthropic$' "$WORK/out"
$CS endpoints add all "http://127.0.0.1:$PORT_all" >"$WORK/out" 2>&1
t "probe: a provider with all three APIs" grep -q 'speaks anthropic,chat,responses$' "$WORK/out"
$CS endpoints add dead "http://127.0.0.1:$dead" >"$WORK/out" 2>&1
rc=$?
te "probe: nothing answering is refused, non-zero, one line with the fix" '[ $rc -ne 0 ] && [ "$(wc -l <"$WORK/out")" = 1 ] && grep -q '\''start the model server'\'' "$WORK/out"'
t "... and nothing recorded" sh -c '! grep -q "^dead " "$1"' sh "$CLI_SANDBOX_HOME/endpoints"
$CS endpoints add x "http://127.0.0.1:$PORT_chat" --type foo >"$WORK/out" 2>&1
rc=$?
te "an unknown type: one line with the fix, non-zero" '[ $rc -ne 0 ] && grep -q '\''use --type anthropic, openai, ollama or gemini'\'' "$WORK/out"'
$CS endpoints add x "http://127.0.0.1:$PORT_chat" --key-env 'sk-abc' >"$WORK/out" 2>&1
rc=$?
te "a key given instead of a variable name is refused, and not echoed" '[ $rc -ne 0 ] && grep -q '\''give the NAME of the exported variable'\'' "$WORK/out" && ! grep -q sk-abc "$WORK/out"'
$CS endpoints list --json >"$WORK/out"
t "list --json: type, model, key variable, speaks" python3 -c '
import json, sys
eps = {e["name"]: e for e in json.load(open(sys.argv[1]))}
c = eps["chat"]
assert (c["type"], c["model"], c["key_env"], c["speaks"]) == ("openai", "m", "SOME_KEY", ["chat"]), c
assert eps["oll"]["speaks"] == ["chat", "ollama"]' "$WORK/out"
printf 'legacy http://192.0.2.9:1\n' >>"$CLI_SANDBOX_HOME/endpoints"
$CS endpoints list >"$WORK/out"
t "an old 'NAME URL' line is still listed as it was" grep -qx '  legacy http://192.0.2.9:1' "$WORK/out"

$CS endpoints use oll
$CS models catalog >"$WORK/out"
t "models catalog: the shipped table" grep -q '^qwen3:8b ' "$WORK/out"
$CS models list >"$WORK/out"
t "models list flags the tool-calling model" grep -q 'qwen3:8b .*calls tools' "$WORK/out"
t "... and the one that does not" grep -q 'gemma:2b .*no tool calls' "$WORK/out"
$CS models pull llama3.1:8b >"$WORK/out" 2>&1
rc=$?
te "models pull: plain progress lines off a terminal, then success" '[ $rc -eq 0 ] && grep -q '\''pulling .*: 50% (2.4 GB of 4.7 GB)'\'' "$WORK/out" && tail -n 1 "$WORK/out" | grep -qx success'
sed 's/^/# /' "$WORK/out"
$CS models pull no-such-model >"$WORK/out" 2>&1
rc=$?
te "models pull of an unknown model: the error, non-zero" '[ $rc -ne 0 ] && grep -q '\''file does not exist'\'' "$WORK/out"'
$CS models use absent:1b </dev/null >"$WORK/out" 2>&1
rc=$?
te "models use of a missing model: non-zero, with the pull hint" '[ $rc -ne 0 ] && grep -q "models pull absent:1b" "$WORK/out"'
t "... and the endpoint's model unchanged" sh -c '! grep -q "model=absent" "$1"' sh "$CLI_SANDBOX_HOME/endpoints"
$CS models use llama3.1:8b >"$WORK/out" 2>&1
t "models use of an installed model sets it" grep -q '^oll .* model=llama3.1:8b' "$CLI_SANDBOX_HOME/endpoints"
$CS --endpoint chat models list >"$WORK/out" 2>&1
rc=$?
te "models on a non-Ollama endpoint: one line with the fix" '[ $rc -ne 0 ] && grep -q '\''models works with Ollama only'\'' "$WORK/out"'
$CS models list --json >"$WORK/out"
t "models list --json: each model, whether it calls tools, the endpoint's" python3 -c '
import json, sys
m = {x["name"]: x for x in json.load(open(sys.argv[1]))}
assert m["qwen3:8b"]["tools"] and not m["gemma:2b"]["tools"] and m["llama3.1:8b"]["selected"], m' "$WORK/out"
$CS models pull --json llama3.1:8b >"$WORK/out" 2>&1
t "models pull --json: no progress, one object at the end" python3 -c '
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 1, lines
o = json.loads(lines[0])
assert (o["model"], o["pulled"], o["status"], o["error"]) == ("llama3.1:8b", True, "success", None), o' "$WORK/out"
if command -v script >/dev/null 2>&1; then
	script -qec "$CS models pull llama3.1:8b" /dev/null </dev/null >"$WORK/out" 2>&1
	t "models pull on a terminal: one bar redrawn in place, then success" python3 -c '
import sys
out = open(sys.argv[1], "rb").read().decode()
assert "\r" + "pulling " in out and "[############-------------]  50% 2.4 GB of 4.7 GB" in out, repr(out)
assert out.count("\n") == 5 and out.rstrip().endswith("success"), repr(out)' "$WORK/out"
else
	printf '# SKIP models pull on a terminal: script (util-linux) is not installed\n'
fi
CLI_SANDBOX_HOME=$WORK/empty $CS models catalog >"$WORK/out" 2>&1
t "models catalog needs no endpoint" grep -q '^qwen3:8b ' "$WORK/out"
# A server's model names outside the model rule are never printed nor used (a name holding
# $(...) would end up in a printed fix); the other names are.
serve odd --speaks ollama,chat --models 'ok:1,x$(touch${IFS}y)'
$CS endpoints add odd "http://127.0.0.1:$PORT_odd" >/dev/null 2>&1
$CS --endpoint odd models list >"$WORK/out" 2>&1
t "models list: a name outside the rule is left out, the others listed" sh -c 'grep -q "ok:1" "$1" && ! grep -q touch "$1"' sh "$WORK/out"

# run: a missing model stops the run before any engine is asked (an engine that fails loudly).
mkdir -p "$WORK/bin" "$WORK/ws"
printf '#!/bin/sh\necho "ENGINE CALLED $*" >>"%s/engine.log"; exit 99\n' "$WORK" >"$WORK/bin/podman"
chmod +x "$WORK/bin/podman"
$CS endpoints add oll2 "http://127.0.0.1:$PORT_oll" --model missing:7b >/dev/null 2>&1
(cd "$WORK/ws" && PATH="$WORK/bin:$PATH" CLI_SANDBOX_ENGINE=podman $CS --endpoint oll2 claude </dev/null >"$WORK/out" 2>&1)
rc=$?
te "run with a model that is not installed: stops early with the hint" '[ $rc -ne 0 ] && grep -q '\''is not installed on endpoint .oll2.: pull it'\'' "$WORK/out"'
t "... before the gateway or the sandbox is started" sh -c '! grep -q "run\|network" "$1" 2>/dev/null' sh "$WORK/engine.log"
# status, with an engine that answers at once and has every image
printf '#!/bin/sh\ncase $1 in version) echo 5.0.0 ;; image) echo sha256:0 ;; inspect) echo false ;; esac\n' >"$WORK/bin/fake-podman"
mkdir -p "$WORK/bin2" && cp "$WORK/bin/fake-podman" "$WORK/bin2/podman" && chmod +x "$WORK/bin2/podman"
(cd "$WORK/ws" && PATH="$WORK/bin2:$PATH" CLI_SANDBOX_ENGINE=podman $CS --endpoint oll status >"$WORK/out" 2>&1)
rc=$?
te "status: an Ollama that answers, the engine and images there: READY, exit 0" '[ $rc -eq 0 ] && tail -n 1 "$WORK/out" | grep -qx READY'
t "... claude's path is the translator (the endpoint lacks Messages), whose gateway image is needed" \
	grep -q "^claude's path: translator; engine podman: answers" "$WORK/out"
(cd "$WORK/ws" && PATH="$WORK/bin2:$PATH" CLI_SANDBOX_ENGINE=podman $CS --endpoint dead2 status --json >"$WORK/out" 2>&1)
rc=$?
te "status of an unknown endpoint: one line, exit 2" '[ $rc -eq 2 ] && grep -q "no endpoint named .dead2." "$WORK/out"'
$CS endpoints add dead2 "http://127.0.0.1:$dead" --type anthropic --no-probe >/dev/null 2>&1
(cd "$WORK/ws" && PATH="$WORK/bin2:$PATH" CLI_SANDBOX_ENGINE=podman $CS --endpoint dead2 --cli codex status --json >"$WORK/out" 2>&1)
rc=$?
te "status --json, nothing listening, codex against Messages only: exit 1" '[ $rc -eq 1 ]'
t "... missing the path and the endpoint, each CLI's route" python3 -c '
import json, sys
o = json.load(open(sys.argv[1]))
assert (o["ready"], o["missing"], o["cli"], o["path"]) == (False, ["path", "endpoint"], "codex", "refused"), o
assert o["routes"]["claude"] == "broker" and o["endpoint"]["reachable"] is False and o["gateway"]["running"] is False, o' "$WORK/out"
# status where the key broker's image is missing: a keyed endpoint's run goes through the broker,
# which the runner refuses to start without its image, so status says so (an engine with every
# image but the broker's).
printf '#!/bin/sh\ncase $1 in version) echo 5.0.0 ;; inspect) echo false ;; image) for a in "$@"; do l=$a; done; case $l in *-broker:*) exit 1 ;; esac; echo sha256:0 ;; esac\n' >"$WORK/bin3-podman"
mkdir -p "$WORK/bin3" && cp "$WORK/bin3-podman" "$WORK/bin3/podman" && chmod +x "$WORK/bin3/podman"
(cd "$WORK/ws" && PATH="$WORK/bin3:$PATH" CLI_SANDBOX_ENGINE=podman SOME_KEY=k $CS --endpoint ant status --json >"$WORK/out" 2>&1)
rc=$?
te "status, the key broker's image missing on a keyed path: NOT READY, exit 1" '[ $rc -eq 1 ]'
t "... missing broker-image, the broker's image named and needed" python3 -c '
import json, sys
o = json.load(open(sys.argv[1]))
assert o["path"] == "broker" and "broker-image" in o["missing"], o
assert o["broker"] == {"image": "localhost/cli-sandbox-broker:latest", "present": False, "needed": True}, o' "$WORK/out"
# libcurl is loaded only by a request: with it hidden (a mount namespace binds /dev/null over
# it), endpoints list still works and models list stops with one line naming the package, 71.
lib=$(ldconfig -p 2>/dev/null | awk '$1 == "libcurl.so.4" { print $NF; exit }')
if [ "$(id -u)" = 0 ] && [ -n "$lib" ] && command -v unshare >/dev/null 2>&1 && unshare -m true 2>/dev/null; then
	lib=$(readlink -f "$lib")
	unshare -m sh -c 'mount --bind /dev/null "$1" && shift && "$@" endpoints list' sh "$lib" $CS >"$WORK/out" 2>&1
	rc=$?
	te "without libcurl: endpoints list works" '[ $rc -eq 0 ] && grep -q "^\* oll " "$WORK/out"'
	unshare -m sh -c 'mount --bind /dev/null "$1" && shift && "$@" models list' sh "$lib" $CS >"$WORK/out" 2>&1
	rc=$?
	te "... a request stops with one line naming the package, exit 71" '[ $rc -eq 71 ] && [ "$(wc -l <"$WORK/out")" = 1 ] && grep -q "install it (apt-get install libcurl4)" "$WORK/out"'
else
	printf '# SKIP without libcurl: needs root, unshare -m and libcurl.so.4 in the linker cache\n'
fi
# a key variable that is not set
(cd "$WORK/ws" && PATH="$WORK/bin:$PATH" CLI_SANDBOX_ENGINE=podman $CS --endpoint chat claude </dev/null >"$WORK/out" 2>&1)
rc=$?
te "a key variable that is not set: one line naming it, non-zero" '[ $rc -ne 0 ] && grep -q '\''SOME_KEY of endpoint .chat. is not set'\'' "$WORK/out"'
t_done
