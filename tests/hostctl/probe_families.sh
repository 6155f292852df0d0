#!/bin/sh
# probe_families.sh CTL MOCK: `endpoints add` probes a mock of each server
# family (mock_server.py, on 127.0.0.1) and records what it really speaks;
# the servers that answer every path alike are refused until the key is
# given with --key-env, which the probe then sends (the mock logs that it
# came) and which appears in no output and not in the endpoints file.
set -u
# shellcheck disable=SC1091  # tests/lib/tap.sh: the shared TAP helper
. "$(cd "$(dirname "$0")/.." && pwd)/lib/tap.sh"
ctl=$1 mock=$2
command -v python3 >/dev/null 2>&1 || { echo "1..0 # SKIP python3 is not installed"; exit 0; }
tmp=$(mktemp -d)
pid=
stop() { [ -z "$pid" ] || { kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; }; pid=; }
trap 'stop; rm -rf "$tmp"' EXIT
export CLI_SANDBOX_HOME="$tmp/home"
KEY_VALUE="sk-probe-$$-c0ffee"
export PROBE_TEST_KEY="$KEY_VALUE"

# start FAMILY [KEY]: the mock in the background; sets URL.
start() {
	rm -f "$tmp/port" "$tmp/port.log"
	python3 "$mock" "$1" "$tmp/port" ${2:+"$2"} &
	pid=$!
	i=0
	while [ ! -s "$tmp/port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	URL="http://127.0.0.1:$(cat "$tmp/port" 2>/dev/null)"
}

# expect FAMILY WANT [ADD-ARGS...]: adds the family's mock (with the key
# when ADD-ARGS has --key-env) and checks the speaks it recorded.
expect() {
	fam=$1 want=$2
	shift 2
	case " $* " in *" --key-env "*) start "$fam" "$KEY_VALUE" ;; *) start "$fam" ;; esac
	"$ctl" endpoints add "$fam" "$URL" "$@" >"$tmp/out" 2>&1
	rc=$?
	stop
	ok "$fam${*:+ ($*)}: speaks $want" grep -Eq "speaks $want(, |\$)" "$tmp/out"
	[ "$rc" -eq 0 ] || t_note <"$tmp/out"
}

expect ollama-0.12 chat,ollama
expect ollama-0.13.3 chat,responses,ollama
expect ollama-0.14 anthropic,chat,responses,ollama
expect llama-server anthropic,chat
expect lm-studio anthropic,chat,responses
expect anthropic anthropic
expect gemini gemini

# The keyed servers: refused without the key, with the fix naming --key-env.
for fam in vllm openai; do
	start "$fam" "$KEY_VALUE"
	"$ctl" endpoints add "$fam" "$URL" >"$tmp/out" 2>&1
	rc=$?
	stop
	# shellcheck disable=SC2016 # expanded by the inner shell
	ok "$fam without its key: refused (exit 2), the fix names --key-env" \
		sh -c '[ "$1" -eq 2 ] && grep -q "answers every path alike.*--key-env VAR" "$2"' _ "$rc" "$tmp/out"
done
expect vllm anthropic,chat,responses --key-env PROBE_TEST_KEY
ok "the probe sent the key (the mock saw it)" grep -q 'POST /v1/messages key=yes' "$tmp/port.log"
expect openai chat,responses --key-env PROBE_TEST_KEY
expect gemini gemini --key-env PROBE_TEST_KEY
# shellcheck disable=SC2016 # expanded by the inner shell
ok "the key's value is in no output and not in the endpoints file" \
	sh -c '! grep -rqF "$1" "$2/out" "$2/home"' _ "$KEY_VALUE" "$tmp"
ok "the file names the variable instead" grep -q '^vllm .* key-env=PROBE_TEST_KEY$' "$tmp/home/endpoints"

# A server that redirects: the probe follows no redirect, so the key goes nowhere else.
start redirect "$KEY_VALUE"
"$ctl" endpoints add redirect "$URL" --key-env PROBE_TEST_KEY >"$tmp/out" 2>&1
rc=$?
stop
ok "a redirecting server: refused (exit 2), no API" [ "$rc" -eq 2 ]
# shellcheck disable=SC2016 # expanded by the inner shell
ok "... and no redirect was followed (it was asked, nothing asked for /elsewhere)" sh -c 'grep -q "GET /api/version" "$1" && ! grep -q elsewhere "$1"' _ "$tmp/port.log"

# Nothing listening: one line with the fix, quickly (the first refused
# connection stops the probe).
"$ctl" endpoints add none http://127.0.0.1:9 >"$tmp/out" 2>&1
rc=$?
# shellcheck disable=SC2016 # expanded by the inner shell
ok "a silent URL: refused (exit 2) with the fix (--type)" \
	sh -c '[ "$1" -eq 2 ] && grep -q "does not answer HTTP.*--type" "$2"' _ "$rc" "$tmp/out"

# The plan follows the probe: claude direct to Ollama 0.14 (keyless: no broker, no key of
# the person's, the placeholder key that is no secret).
# shellcheck disable=SC2016 # expanded by the inner shell
ok "claude's plan to ollama-0.14: direct, Messages, the placeholder key" sh -c '"$1" plan --cli claude --endpoint ollama-0.14 >"$2" && grep -qx "route=direct" "$2" && grep -qx "api=anthropic" "$2" && grep -qx "token=placeholder" "$2"' _ "$ctl" "$tmp/p14"
# The runner's way of reading a plan: a while-read loop and a case, no eval.
"$ctl" plan --cli claude --endpoint ollama-0.14 >"$tmp/plan"
route='' upstream='' env='' vars=''
while IFS='=' read -r k v; do
	case $k in
	route) route=$v ;;
	upstream) upstream=$v ;;
	env) env=$v ;;
	token_var) vars="$vars $v" ;;
	esac
done <"$tmp/plan"
read_plan_ok() {
	[ "$route" = direct ] && [ "$env" = CLAUDE_CODE_ATTRIBUTION_HEADER=0 ] && [ "$vars" = " ANTHROPIC_API_KEY" ] &&
		case $upstream in http://127.0.0.1:*/v1) false ;; http://127.0.0.1:*) true ;; *) false ;; esac
}
ok "a sh read loop gets the plan: route, the root as upstream, NAME=VALUE env, token variables" read_plan_ok
t_done
