#!/bin/sh
# The key broker (docs/broker.md) against mock upstreams that speak the real wire formats
# (tests/broker/mock_upstream.py), under podman and then a private dockerd (tests/dockerd.sh).
# TAP. Per engine, on an --internal network 198.51.100.240/28 made and removed here:
#   - with the run's token: the attack pass's probes (/api/config, /api/logs?file=/proc/self/environ,
#     /api/restart, /ui) get 404 in the API's own shape, and never reach the upstream (its log);
#   - no token, a wrong one, a revoked one: 401, never at the upstream; a second run's token
#     of the same broker keeps working after the first is revoked;
#   - another model: refused (Anthropic, Gemini's path) or rewritten (OpenAI); a body sent
#     intact (its SHA-256 at the upstream) when nothing is rewritten;
#   - the upstream sees exactly the key in its API's header (x-api-key, Bearer,
#     x-goog-api-key) and never the run's token (no header, no query);
#   - SSE from each API arrives in pieces: the client reads the first event while the mock
#     still holds the rest (it sends them only when the client, having read it, asks);
#   - the key in no broker inspect, no host ps, no broker log line; the token in no log line;
#     the log lines' fields; the confinement read back (read-only root, no capability,
#     no_new_privs, uid 1002, 64 MiB, 64 PIDs);
#   - TLS: an upstream certificate from a CA outside the trust bundle is refused (502, JSON),
#     one from the CA added to the bundle (a mounted file) is accepted with SNI, and the right
#     CA under the wrong name is refused;
#   - the broker still serves after all of it.
# usage: sh tests/broker/broker.sh   (root; BROKER_TEST_ENGINES="podman docker",
#        CLI_SANDBOX_BROKER_IMAGE, CLI_SANDBOX_PYTHON_IMAGE). Takes the engine lock of this
#        machine's shared use itself (/tmp/cli-sandbox-engine.lock).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
LOCK=${CLI_SANDBOX_ENGINE_LOCK:-/tmp/cli-sandbox-engine.lock}
if [ -z "${BROKER_TEST_LOCKED:-}" ] && command -v flock >/dev/null 2>&1; then
	BROKER_TEST_LOCKED=1 exec flock "$LOCK" sh "$0" "$@"
fi
. "$ROOT/tests/lib/tap.sh"
# the broker's life cycle through cli-sandbox-ctl broker, as the runner calls it
# shellcheck source=tests/broker/ctl.sh
. "$ROOT/tests/broker/ctl.sh"
BIMAGE=${CLI_SANDBOX_BROKER_IMAGE:-localhost/cli-sandbox-broker:latest}
PYIMAGE=${CLI_SANDBOX_PYTHON_IMAGE:-localhost/cli-sandbox-python:test}
LIMITS="--runtime runc --ulimit nofile=1024:1024 --ulimit nproc=1000:1000"
NET=cli-sandbox-broker-test-$$
W=$(mktemp -d /tmp/cli-sandbox-broker-test.XXXXXX)
chmod 0755 "$W"
ENGINE=""
DIRS=""
DIR_a="" DIR_o="" DIR_g="" DIR_t1="" DIR_t2="" DIR_t3="" DIR_t4=""
. "$ROOT/tests/dockerd.sh"

cleanup() {
	if [ -n "$ENGINE" ]; then
		for c in mock tls rogue a o g t1 t2 t3 t4; do "$ENGINE" rm -f "b32-$c-$$" >/dev/null 2>&1; done
		"$ENGINE" network rm "$NET" >/dev/null 2>&1
	fi
	for d in $DIRS; do broker_stop true none "$d"; done
	DIRS=""
}
trap 'cleanup; dockerd_stop; rm -rf "$W"' EXIT
trap 'exit 130' INT TERM

podman image exists "$BIMAGE" || { echo "1..0 # SKIP no $BIMAGE: sh image/build.sh --cli broker"; exit 0; }
sh "$ROOT/tests/gateway/make-python-image.sh" "$PYIMAGE" || { echo "Bail out! cannot build $PYIMAGE"; exit 1; }

# The test CA and two certificates: upstream.test from the test CA, and the same name from a
# CA nobody trusts.
mkca() {  # mkca NAME: CA key and certificate in $W/NAME-ca.{key,pem}
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj "/CN=cli-sandbox test $1 CA" \
		-keyout "$W/$1-ca.key" -out "$W/$1-ca.pem" 2>/dev/null
}
mkcert() {  # mkcert CA NAME: a server certificate for NAME signed by CA, in $W/CA-NAME.{key,pem}
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$2" \
		-keyout "$W/$1-$2.key" -out "$W/$1-$2.csr" 2>/dev/null &&
		printf 'subjectAltName=DNS:%s\nextendedKeyUsage=serverAuth\n' "$2" >"$W/$1-$2.ext" &&
		openssl x509 -req -in "$W/$1-$2.csr" -CA "$W/$1-ca.pem" -CAkey "$W/$1-ca.key" -CAcreateserial \
			-days 2 -extfile "$W/$1-$2.ext" -out "$W/$1-$2.pem" 2>/dev/null &&
		chmod 0644 "$W/$1-$2.key"
}
if ! { mkca test && mkcert test upstream.test && mkca rogue && mkcert rogue upstream.test; }; then
	echo "Bail out! openssl could not make the test certificates"
	exit 1
fi
cat /etc/ssl/certs/ca-certificates.crt "$W/test-ca.pem" >"$W/bundle-with-test-ca.pem"
chmod 0644 "$W/bundle-with-test-ca.pem"

# The answers of one client run: res ID FIELD (status, body, first_piece, sent_sha256,
# header:NAME).
res() {
	python3 - "$W/out.json" "$1" "$2" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    a = json.loads(line)
    if a["id"] == sys.argv[2]:
        f = sys.argv[3]
        v = a["headers"].get(f[7:], "") if f.startswith("header:") else a.get(f, "")
        print(v)
PY
}
# mocklog ID FIELD: what the upstream saw of probe ID (by its x-probe header), "absent" if
# it never came; FIELD: path, body_sha256, sni, header:NAME, headers (all, JSON).
mocklog() {
	python3 - "$W/mock.log" "$1" "$2" <<'PY'
import json, sys
seen = None
for line in open(sys.argv[1]):
    if not line.startswith("{"):
        continue
    a = json.loads(line)
    if a["headers"].get("x-probe") == sys.argv[2]:
        seen = a
if seen is None:
    print("absent")
else:
    f = sys.argv[3]
    if f == "headers":
        print(json.dumps(seen["headers"]))
    elif f.startswith("header:"):
        print(seen["headers"].get(f[7:], "(none)"))
    else:
        print(seen.get(f))
PY
}
# client FILE: runs the requests of FILE from a container on the test network.
client() {
	cp "$1" "$W/req.json" && chmod 0644 "$W/req.json"
	# shellcheck disable=SC2086 # LIMITS is a list of words
	"$ENGINE" run --rm $LIMITS --network "$NET" -v "$HERE:/t:ro" -v "$W/req.json:/req.json:ro" \
		"$PYIMAGE" python3 /t/client.py /req.json >"$W/out.json" 2>"$W/client.err" ||
		sed 's/^/client: /' "$W/client.err" | t_note
}
mocklogs() {
	"$ENGINE" logs "b32-mock-$$" >"$W/mock.log" 2>&1
	"$ENGINE" logs "b32-tls-$$" >>"$W/mock.log" 2>&1
}
is() {  # is DESCRIPTION GOT WANT
	if [ "$2" = "$3" ]; then t_pass "$1"; else t_fail "$1" "got: $2
want: $3"; fi
}
contains() {  # contains TEXT NEEDLE (no exec: the needle may be the key)
	case $1 in *"$2"*) return 0 ;; esac
	return 1
}

# brk NAME IP API URL MODELS POLICY [ENGINE-OPTIONS]: a broker with the test's key.
brk() {
	n=$1 ip=$2
	d=$(broker_dir_new) || return 1
	DIRS="$DIRS $d"
	broker_config_write "$d" "$3" "$4" "$5" "$6" || return 1
	printf '%s' "$KEY" | broker_key_write "$d" || return 1
	shift 6
	# shellcheck disable=SC2086 # LIMITS is a list of words
	broker_start "$ENGINE" "b32-$n-$$" "$BIMAGE" "$d" $LIMITS --network "$NET" --ip "$ip" "$@" || return 1
	case $n in
	a) DIR_a=$d ;; o) DIR_o=$d ;; g) DIR_g=$d ;;
	t1) DIR_t1=$d ;; t2) DIR_t2=$d ;; t3) DIR_t3=$d ;; t4) DIR_t4=$d ;;
	esac
}

one_engine() {
	ENGINE=$1 EN=${1##*/} T0=$(date +%s)
	echo "# engine: $ENGINE"
	KEY=sk-broker-test-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
	"$ENGINE" network create --internal --subnet 198.51.100.240/28 "$NET" >/dev/null ||
		{ t_fail "$EN: the test network"; return; }
	# shellcheck disable=SC2086 # LIMITS is a list of words
	if ! { "$ENGINE" run -d --name "b32-mock-$$" $LIMITS --network "$NET" --ip 198.51.100.242 -v "$HERE:/t:ro" \
		"$PYIMAGE" python3 /t/mock_upstream.py --port 8080 >/dev/null &&
		"$ENGINE" run -d --name "b32-tls-$$" $LIMITS --network "$NET" --ip 198.51.100.243 -v "$HERE:/t:ro" -v "$W:/w:ro" \
			"$PYIMAGE" python3 /t/mock_upstream.py --port 8443 --tls /w/test-upstream.test.pem /w/test-upstream.test.key >/dev/null; }; then
		t_fail "$EN: the mock upstreams"
		return
	fi
	ROGUE_IP=198.51.100.250
	# shellcheck disable=SC2086 # LIMITS is a list of words
	"$ENGINE" run -d --name "b32-rogue-$$" $LIMITS --network "$NET" --ip "$ROGUE_IP" -v "$HERE:/t:ro" -v "$W:/w:ro" \
		"$PYIMAGE" python3 /t/mock_upstream.py --port 8443 --tls /w/rogue-upstream.test.pem /w/rogue-upstream.test.key >/dev/null
	up=http://198.51.100.242:8080
	if ! { brk a 198.51.100.244 anthropic "$up" claude-test-1 refuse &&
		brk o 198.51.100.245 openai "$up" gpt-test-1 rewrite &&
		brk g 198.51.100.246 gemini "$up" gemini-test-1 refuse &&
		brk t1 198.51.100.247 anthropic https://upstream.test:8443 "" refuse \
			--add-host upstream.test:198.51.100.243 -v "$W/bundle-with-test-ca.pem:/etc/ssl/certs/ca-certificates.crt:ro" &&
		brk t2 198.51.100.248 anthropic https://upstream.test:8443 "" refuse --add-host upstream.test:198.51.100.243 &&
		brk t3 198.51.100.249 anthropic https://other.test:8443 "" refuse \
			--add-host other.test:198.51.100.243 -v "$W/bundle-with-test-ca.pem:/etc/ssl/certs/ca-certificates.crt:ro"; }; then
		t_fail "$EN: the brokers started"
		return
	fi
	for n in a o g t1 t2 t3; do
		broker_wait "$ENGINE" "b32-$n-$$" || { t_fail "$EN: broker $n listens" "$("$ENGINE" logs "b32-$n-$$" 2>&1 | tail -5)"; return; }
	done
	# t4: the right name, the rogue CA (the upstream at ROGUE_IP)
	if ! { brk t4 198.51.100.251 anthropic https://upstream.test:8443 "" refuse \
		--add-host "upstream.test:$ROGUE_IP" -v "$W/bundle-with-test-ca.pem:/etc/ssl/certs/ca-certificates.crt:ro" &&
		broker_wait "$ENGINE" "b32-t4-$$"; }; then
		t_fail "$EN: broker t4 listens"
		return
	fi
	t_pass "$EN: seven brokers and three mock upstreams up ($(( $(date +%s) - T0 )) s)"

	if ! { tok1=$(broker_token_add "$DIR_a") && tok2=$(broker_token_add "$DIR_a") && tokr=$(broker_token_add "$DIR_a") &&
		toko=$(broker_token_add "$DIR_o") && tokg=$(broker_token_add "$DIR_g") &&
		tokt1=$(broker_token_add "$DIR_t1") && tokt2=$(broker_token_add "$DIR_t2") && tokt3=$(broker_token_add "$DIR_t3") &&
		tokt4=$(broker_token_add "$DIR_t4"); }; then
		t_fail "$EN: tokens added"
		return
	fi
	printf '%s\n' "$tokr" | broker_token_revoke "$DIR_a"
	A=http://198.51.100.244:8080 O=http://198.51.100.245:8080 G=http://198.51.100.246:8080
	MSG='"max_tokens":16,"messages":[{"role":"user","content":"hi"}]'
	# a claude-sized body with escapes and non-ASCII, forwarded byte for byte
	python3 - "$W/big.json" <<'PY'
import json, sys
body = {"model": "claude-test-1", "max_tokens": 16, "system": "caf\u00e9 \"q\" \\ " * 2000,
        "messages": [{"role": "user", "content": "x " * 20000}]}
text = json.dumps(body, separators=(",", ":"), ensure_ascii=False)
open(sys.argv[1], "w").write(json.dumps(text))
PY
	bigjson=$(cat "$W/big.json")
	cat >"$W/r1.json" <<EOF
[
{"id":"ok","url":"$A/v1/messages?beta=true","method":"POST","headers":{"x-api-key":"$tok1","x-probe":"ok","anthropic-version":"2023-06-01"},"body":{"model":"claude-test-1",$MSG}},
{"id":"big","url":"$A/v1/messages","method":"POST","headers":{"x-api-key":"$tok1","x-probe":"big"},"raw":$bigjson},
{"id":"bearer","url":"$A/v1/messages/count_tokens","method":"POST","headers":{"authorization":"Bearer $tok2","x-probe":"bearer"},"body":{"model":"claude-test-1",$MSG}},
{"id":"models","url":"$A/v1/models","headers":{"x-api-key":"$tok1","x-probe":"models"}},
{"id":"cfg","url":"$A/api/config","headers":{"x-api-key":"$tok1","x-probe":"cfg"}},
{"id":"logs","url":"$A/api/logs?file=/proc/self/environ","headers":{"x-api-key":"$tok1","x-probe":"logs"}},
{"id":"dellogs","url":"$A/api/logs?file=/etc/passwd","method":"DELETE","headers":{"x-api-key":"$tok1","x-probe":"dellogs"}},
{"id":"restart","url":"$A/api/restart","method":"POST","headers":{"x-api-key":"$tok1","x-probe":"restart"},"body":{}},
{"id":"ui","url":"$A/ui","headers":{"x-api-key":"$tok1","x-probe":"ui"}},
{"id":"ui2","url":"$A/ui/","headers":{"x-api-key":"$tok1","x-probe":"ui2"}},
{"id":"dotdot","url":"$A/v1/messages/../../api/config","headers":{"x-api-key":"$tok1","x-probe":"dotdot"}},
{"id":"getmsg","url":"$A/v1/messages","headers":{"x-api-key":"$tok1","x-probe":"getmsg"}},
{"id":"chat-on-a","url":"$A/v1/chat/completions","method":"POST","headers":{"x-api-key":"$tok1","x-probe":"chat-on-a"},"body":{"model":"claude-test-1"}},
{"id":"notoken","url":"$A/v1/messages","method":"POST","headers":{"x-probe":"notoken"},"body":{"model":"claude-test-1",$MSG}},
{"id":"wrongtoken","url":"$A/v1/messages","method":"POST","headers":{"x-api-key":"csbt_0000000000000000000000000000000000000000000000000000000000000000","x-probe":"wrongtoken"},"body":{"model":"claude-test-1",$MSG}},
{"id":"keyastoken","url":"$A/v1/messages","method":"POST","headers":{"x-api-key":"$KEY","x-probe":"keyastoken"},"body":{"model":"claude-test-1",$MSG}},
{"id":"revoked","url":"$A/v1/messages","method":"POST","headers":{"x-api-key":"$tokr","x-probe":"revoked"},"body":{"model":"claude-test-1",$MSG}},
{"id":"othertoken","url":"$A/v1/messages","method":"POST","headers":{"x-api-key":"$toko","x-probe":"othertoken"},"body":{"model":"claude-test-1",$MSG}},
{"id":"notoken-cfg","url":"$A/api/config","headers":{"x-probe":"notoken-cfg"}},
{"id":"othermodel","url":"$A/v1/messages","method":"POST","headers":{"x-api-key":"$tok1","x-probe":"othermodel"},"body":{"model":"claude-opus-any",$MSG}},
{"id":"dupmodel","url":"$A/v1/messages","method":"POST","headers":{"x-api-key":"$tok1","x-probe":"dupmodel"},"raw":"{\"model\":\"claude-test-1\",\"model\":\"claude-opus-any\"}"},
{"id":"notjson","url":"$A/v1/messages","method":"POST","headers":{"x-api-key":"$tok1","x-probe":"notjson"},"raw":"model=claude-test-1"},
{"id":"sse-a","url":"$A/v1/messages","method":"POST","headers":{"x-api-key":"$tok1","x-probe":"sse-a"},"body":{"model":"claude-test-1","stream":true,$MSG},"release":"http://198.51.100.242:8080"},
{"id":"o-ok","url":"$O/v1/chat/completions","method":"POST","headers":{"authorization":"Bearer $toko","x-probe":"o-ok"},"body":{"model":"gpt-test-1","messages":[]}},
{"id":"o-rewrite","url":"$O/v1/responses","method":"POST","headers":{"authorization":"Bearer $toko","x-probe":"o-rewrite"},"body":{"model":"gpt-5-anything","input":"hi"}},
{"id":"o-404","url":"$O/v1/messages","method":"POST","headers":{"authorization":"Bearer $toko","x-probe":"o-404"},"body":{"model":"gpt-test-1"}},
{"id":"sse-o","url":"$O/v1/chat/completions","method":"POST","headers":{"authorization":"Bearer $toko","x-probe":"sse-o"},"body":{"model":"gpt-test-1","stream":true,"messages":[]},"release":"http://198.51.100.242:8080"},
{"id":"g-ok","url":"$G/v1beta/models/gemini-test-1:generateContent?key=$tokg","method":"POST","headers":{"x-goog-api-key":"$tokg","x-probe":"g-ok"},"body":{"contents":[]}},
{"id":"g-other","url":"$G/v1beta/models/gemini-ultra:generateContent","method":"POST","headers":{"x-goog-api-key":"$tokg","x-probe":"g-other"},"body":{"contents":[]}},
{"id":"g-keyonly","url":"$G/v1beta/models/gemini-test-1:generateContent?key=$tokg","method":"POST","headers":{"x-probe":"g-keyonly"},"body":{"contents":[]}},
{"id":"sse-g","url":"$G/v1beta/models/gemini-test-1:streamGenerateContent?alt=sse","method":"POST","headers":{"x-goog-api-key":"$tokg","x-probe":"sse-g"},"body":{"contents":[]},"release":"http://198.51.100.242:8080"},
{"id":"t1","url":"http://198.51.100.247:8080/v1/messages","method":"POST","headers":{"x-api-key":"$tokt1","x-probe":"t1"},"body":{"model":"m",$MSG}},
{"id":"t2","url":"http://198.51.100.248:8080/v1/messages","method":"POST","headers":{"x-api-key":"$tokt2","x-probe":"t2"},"body":{"model":"m",$MSG}},
{"id":"t3","url":"http://198.51.100.249:8080/v1/messages","method":"POST","headers":{"x-api-key":"$tokt3","x-probe":"t3"},"body":{"model":"m",$MSG}},
{"id":"t4","url":"http://198.51.100.251:8080/v1/messages","method":"POST","headers":{"x-api-key":"$tokt4","x-probe":"t4"},"body":{"model":"m",$MSG}}
]
EOF
	client "$W/r1.json"
	# the first run ends: its token is revoked; the second run's goes on
	printf '%s\n' "$tok1" | broker_token_revoke "$DIR_a"
	cat >"$W/r2.json" <<EOF
[
{"id":"after-revoke","url":"$A/v1/messages","method":"POST","headers":{"x-api-key":"$tok1","x-probe":"after-revoke"},"body":{"model":"claude-test-1",$MSG}},
{"id":"second-run","url":"$A/v1/messages","method":"POST","headers":{"x-api-key":"$tok2","x-probe":"second-run"},"body":{"model":"claude-test-1",$MSG}}
]
EOF
	mocklogs
	cp "$W/out.json" "$W/out1.json"
	client "$W/r2.json"
	cp "$W/out.json" "$W/out2.json"
	mocklogs
	cp "$W/out1.json" "$W/out.json"

	is "$EN: a Messages call with the token passes (200)" "$(res ok status)" 200
	is "$EN: ... with the query kept" "$(mocklog ok path)" "/v1/messages?beta=true"
	is "$EN: ... and the upstream sees exactly the key in x-api-key" "$(mocklog ok header:x-api-key)" "$KEY"
	is "$EN: ... and no Authorization header" "$(mocklog ok header:authorization)" "(none)"
	is "$EN: ... the client's anthropic-version passed on" "$(mocklog ok header:anthropic-version)" "2023-06-01"
	is "$EN: a claude-sized body (escapes, non-ASCII) reaches the upstream byte for byte" \
		"$(mocklog big body_sha256)" "$(res big sent_sha256)"
	is "$EN: the token as Bearer passes (count_tokens, 200)" "$(res bearer status)" 200
	is "$EN: ... and the upstream gets the key in x-api-key, no Authorization" \
		"$(mocklog bearer header:x-api-key) $(mocklog bearer header:authorization)" "$KEY (none)"
	is "$EN: GET /v1/models passes" "$(res models status)" 200
	for p in cfg logs dellogs restart ui ui2 dotdot getmsg chat-on-a; do
		is "$EN: probe $p with the token: 404, never at the upstream" "$(res $p status) $(mocklog $p path)" "404 absent"
	done
	is "$EN: the 404 is Anthropic's error JSON" "$(res cfg body)" '{"type":"error","error":{"type":"not_found_error","message":"not found"}}'
	for p in notoken wrongtoken keyastoken revoked othertoken notoken-cfg; do
		is "$EN: $p: 401, never at the upstream" "$(res $p status) $(mocklog $p path)" "401 absent"
	done
	is "$EN: the 401 is Anthropic's error JSON" "$(res notoken body)" \
		'{"type":"error","error":{"type":"authentication_error","message":"missing, unknown or revoked token"}}'
	is "$EN: another model is refused (400), never at the upstream" "$(res othermodel status) $(mocklog othermodel path)" "400 absent"
	is "$EN: ... in Anthropic's shape" "$(res othermodel body)" \
		'{"type":"error","error":{"type":"invalid_request_error","message":"model not served here: use claude-test-1"}}'
	is "$EN: a duplicate \"model\" key (the last one counts) is refused" "$(res dupmodel status) $(mocklog dupmodel path)" "400 absent"
	is "$EN: a body that is not JSON is refused" "$(res notjson status) $(mocklog notjson path)" "400 absent"
	is "$EN: Anthropic SSE: 200" "$(res sse-a status)" 200
	if contains "$(res sse-a first_piece)" message_start && contains "$(res sse-a body)" RELEASED-YES; then
		t_pass "$EN: Anthropic SSE arrives in pieces (the first event read while the upstream held the rest)"
	else
		t_fail "$EN: Anthropic SSE arrives in pieces" "$(res sse-a body | head -c 600)"
	fi
	is "$EN: OpenAI: the token as Bearer passes" "$(res o-ok status)" 200
	is "$EN: ... the upstream gets Authorization: Bearer KEY, no x-api-key" \
		"$(mocklog o-ok header:authorization)|$(mocklog o-ok header:x-api-key)" "Bearer $KEY|(none)"
	is "$EN: OpenAI: another model is rewritten to the endpoint's (Responses)" "$(res o-rewrite status)" 200
	if contains "$(res o-rewrite body)" '"model": "gpt-test-1"'; then t_pass "$EN: ... the upstream saw gpt-test-1"; else
		t_fail "$EN: ... the upstream saw gpt-test-1" "$(res o-rewrite body)"; fi
	is "$EN: OpenAI: /v1/messages is not its path: 404 in OpenAI's shape" "$(res o-404 status) $(res o-404 body)" \
		'404 {"error":{"message":"not found","type":"not_found_error","param":null,"code":null}}'
	if contains "$(res sse-o first_piece)" 'chat.completion.chunk' && contains "$(res sse-o body)" RELEASED-YES; then
		t_pass "$EN: Chat Completions SSE arrives in pieces"
	else t_fail "$EN: Chat Completions SSE arrives in pieces" "$(res sse-o body | head -c 600)"; fi
	is "$EN: Gemini: the token in x-goog-api-key passes" "$(res g-ok status)" 200
	is "$EN: ... the upstream gets x-goog-api-key KEY, and no key= in the query" \
		"$(mocklog g-ok header:x-goog-api-key)|$(mocklog g-ok path)" "$KEY|/v1beta/models/gemini-test-1:generateContent"
	is "$EN: Gemini: another model in the path is refused in Gemini's shape" "$(res g-other status) $(res g-other body) $(mocklog g-other path)" \
		'400 {"error":{"code":400,"message":"model not served here: use gemini-test-1","status":"INVALID_ARGUMENT"}} absent'
	is "$EN: Gemini: the token only in ?key= is not accepted" "$(res g-keyonly status) $(mocklog g-keyonly path)" "401 absent"
	if contains "$(res sse-g first_piece)" 'candidates' && contains "$(res sse-g body)" RELEASED-YES; then
		t_pass "$EN: Gemini SSE (alt=sse) arrives in pieces"
	else t_fail "$EN: Gemini SSE arrives in pieces" "$(res sse-g body | head -c 600)"; fi
	is "$EN: TLS: a certificate from the CA added to the bundle is accepted" "$(res t1 status)" 200
	is "$EN: ... with SNI upstream.test" "$(mocklog t1 sni)" upstream.test
	is "$EN: TLS: the same certificate against the system CAs only is refused (502, never served)" \
		"$(res t2 status) $(mocklog t2 path)" "502 absent"
	is "$EN: ... with an API-shaped body, no nginx page" "$(res t2 body)" \
		'{"type":"error","error":{"type":"api_error","message":"the upstream did not answer or failed its TLS check"}}'
	is "$EN: TLS: the trusted CA's certificate under another name is refused" "$(res t3 status) $(mocklog t3 path)" "502 absent"
	is "$EN: TLS: the right name from a rogue CA is refused" "$(res t4 status)" 502

	cp "$W/out2.json" "$W/out.json"
	is "$EN: the first run's token, revoked when it ended: 401, never at the upstream" \
		"$(res after-revoke status) $(mocklog after-revoke path)" "401 absent"
	is "$EN: the second run's token on the same broker still passes" "$(res second-run status)" 200

	# The token never reached an upstream, in any header, path or body.
	all_mock=$(cat "$W/mock.log")
	leaked=""
	for t in "$tok1" "$tok2" "$tokr" "$toko" "$tokg" "$tokt1"; do contains "$all_mock" "$t" && leaked="$leaked ${t%"${t#????????}"}..."; done
	is "$EN: no run token in anything the upstreams received" "$leaked" ""

	# Secrets: inspect, ps, logs.
	insp="" logs=""
	for n in a o g t1 t2 t3 t4; do
		insp="$insp$("$ENGINE" inspect "b32-$n-$$" 2>&1)"
		logs="$logs$("$ENGINE" logs "b32-$n-$$" 2>&1)"
	done
	if contains "$insp" "$KEY"; then t_fail "$EN: the key is in no broker's inspect"; else t_pass "$EN: the key is in no broker's inspect"; fi
	psout=$(ps -eo args)
	if contains "$psout" "$KEY"; then t_fail "$EN: the key is in no host process's arguments"; else t_pass "$EN: the key is in no host process's arguments"; fi
	leaked=""
	for t in "$KEY" "$tok1" "$tok2" "$toko" "$tokg"; do contains "$logs" "$t" && leaked="$leaked ${t%"${t#????????}"}..."; done
	is "$EN: neither the key nor a token is in any broker log" "$leaked" ""
	alog=$("$ENGINE" logs "b32-a-$$" 2>/dev/null | grep -v '^[0-9/]* [0-9:]* \[notice\]')
	bad=$(printf '%s\n' "$alog" | grep -Evx '[0-9T:+-]{25} (-|invalid|unknown:[0-9a-f]{8}|[0-9a-f]{12}) (GET|POST|DELETE) /[^ ]* [0-9]{3} [0-9]+ ([0-9.]+|-)' | head -3)
	is "$EN: every broker log line is: time, token's short hash, method, path, status, bytes, upstream time" "$bad" ""
	if contains "$alog" "environ"; then
		t_fail "$EN: the log holds no query string (/api/logs?file=... logged as its path)"
	else t_pass "$EN: the log holds no query string"; fi
	line=$(printf '%s\n' "$alog" | grep -c ' GET /api/logs 404 ')
	is "$EN: the probe /api/logs?file=... is logged once, as a 404 of its path" "$line" 1

	# Confinement, read back from the engine and from the kernel.
	# (the capabilities: from the kernel below; podman's inspect lists them one by one)
	conf=$("$ENGINE" inspect -f '{{.HostConfig.ReadonlyRootfs}} {{.HostConfig.SecurityOpt}} {{.HostConfig.Memory}} {{.HostConfig.PidsLimit}} {{.Config.User}}' "b32-a-$$")
	case $conf in
	"true "*no-new-privileges*" 67108864 64 1002:1002") t_pass "$EN: broker confinement in inspect: $conf" ;;
	*) t_fail "$EN: broker confinement in inspect" "$conf" ;;
	esac
	st=$("$ENGINE" exec "b32-a-$$" cat /proc/1/status | grep -E '^(Uid|CapEff|CapPrm|CapBnd|NoNewPrivs):' | tr -s '\t ' ' ' | tr '\n' ';')
	is "$EN: nginx (PID 1) runs as 1002, no capability, no_new_privs" "$st" \
		"Uid: 1002 1002 1002 1002;CapPrm: 0000000000000000;CapEff: 0000000000000000;CapBnd: 0000000000000000;NoNewPrivs: 1;"
	if "$ENGINE" exec "b32-a-$$" sh -c ': >/etc/x' 2>/dev/null; then t_fail "$EN: the root is read-only"; else t_pass "$EN: the root is read-only"; fi
	mnt=$("$ENGINE" exec "b32-a-$$" cat /proc/1/mountinfo | awk '$5 == "/run/broker" { print $6 }')
	case ,$mnt, in *,ro,*) t_pass "$EN: /run/broker (key, tokens) is mounted read-only ($mnt)" ;;
	*) t_fail "$EN: /run/broker is mounted read-only" "$mnt" ;; esac
	mnt=$("$ENGINE" exec "b32-a-$$" cat /proc/1/mountinfo | awk '$5 == "/tmp" { print $9 }')
	is "$EN: /tmp, the one writable path, is on memory" "$mnt" tmpfs

	# Still serving after all of it, and never restarted.
	cat >"$W/r3.json" <<EOF
[{"id":"still","url":"$A/v1/messages","method":"POST","headers":{"x-api-key":"$tok2","x-probe":"still"},"body":{"model":"claude-test-1",$MSG}}]
EOF
	client "$W/r3.json"
	is "$EN: the broker keeps serving after the probes" "$(res still status) $("$ENGINE" inspect -f '{{.State.Running}} {{.RestartCount}}' "b32-a-$$")" "200 true 0"
	cleanup
	ENGINE=""
	echo "# $EN: $(( $(date +%s) - T0 )) s"
}

for e in ${BROKER_TEST_ENGINES:-podman docker}; do
	case $e in
	podman) one_engine podman ;;
	docker)
		if ! dockerd_start; then
			t_skip "docker: the private dockerd did not start (tests/dockerd.sh)"
			continue
		fi
		if ! { dockerd_load "$BIMAGE" && dockerd_load "$PYIMAGE"; }; then
			t_fail "docker: images loaded"
			dockerd_stop
			continue
		fi
		DOCKER_ENGINE=$DOCKER
		one_engine "$DOCKER_ENGINE"
		dockerd_stop
		;;
	esac
done
t_done
