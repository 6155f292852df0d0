#!/bin/sh
# Benchmark (not a timed test): the gateway's cost against the direct path, side by side in
# one run, on the same mock upstream (tests/gateway/mock_gateway.py, Chat Completions): a
# client container sends 50 requests straight to the upstream (Chat Completions) and 50 to
# the gateway (Anthropic Messages, translated to Chat Completions), one at a time, and prints
# the medians and their difference, the gateway's CPU per request and its container's RSS
# after the load; then the same with a claude-sized prompt (BENCH_PROMPT_WORDS, 20000); also
# how long the gateway takes to start. Five interleaved rounds; the middle round is printed.
# Networks: cli-sandbox-gw-test-bench-PID, 198.51.100.112/28, internal.
# usage: sh tests/bench/gateway.sh  (root, podman; CLI_SANDBOX_GATEWAY_IMAGE, CLI_SANDBOX_PYTHON_IMAGE)
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
GWIMAGE=${CLI_SANDBOX_GATEWAY_IMAGE:-localhost/cli-sandbox-gateway:latest}
PYIMAGE=${CLI_SANDBOX_PYTHON_IMAGE:-localhost/cli-sandbox-python:test}
LIMITS="--runtime runc --ulimit nofile=1024:1024 --ulimit nproc=1000:1000"
NET=cli-sandbox-gw-test-bench-$$ UP=cli-sandbox-gw-bench-up-$$ GW=cli-sandbox-gw-bench-gw-$$
N=${BENCH_REQUESTS:-50}
cleanup() { for c in "$UP" "$GW"; do podman rm -f "$c" >/dev/null 2>&1; done; podman network rm "$NET" >/dev/null 2>&1 || true; }
trap cleanup EXIT
sh "$ROOT/tests/gateway/make-python-image.sh" "$PYIMAGE"
podman network create --internal --subnet 198.51.100.112/28 "$NET" >/dev/null
# shellcheck disable=SC2086
podman run -d --name "$UP" $LIMITS --network "$NET" --ip 198.51.100.114 -v "$ROOT/tests/gateway:/gw:ro" \
	"$PYIMAGE" python3 /gw/mock_gateway.py --listen 0.0.0.0 --port 8080 --speaks chat --max-seconds 600 >/dev/null
export CLI_SANDBOX_GATEWAY_TOKEN=bench-token
# shellcheck disable=SC2016 # the router reads $CLI_SANDBOX_GATEWAY_TOKEN itself
cfg='{"HOST":"0.0.0.0","PORT":3456,"APIKEY":"$CLI_SANDBOX_GATEWAY_TOKEN","LOG":false,"Providers":[{"name":"upstream","api_base_url":"http://198.51.100.114:8080/v1/chat/completions","api_key":"none","models":["m"]}],"Router":{"default":"upstream,m"}}'
t0=$(date +%s%N)
# shellcheck disable=SC2086
podman run -d --name "$GW" $LIMITS --cap-drop=ALL --security-opt=no-new-privileges --network "$NET" --ip 198.51.100.115 \
	-e CLI_SANDBOX_GATEWAY_TOKEN -e "CLI_SANDBOX_GATEWAY_CONFIG=$cfg" "$GWIMAGE" >/dev/null
i=0
until podman exec "$GW" node -e "fetch('http://127.0.0.1:3456/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))" 2>/dev/null; do
	i=$((i + 1)); [ $i -lt 150 ] || { echo "the gateway did not start"; exit 1; }; sleep 0.2
done
t1=$(date +%s%N)
echo "gateway start (podman run -d to /health answering): $(( (t1 - t0) / 1000000 )) ms"
# The client: 5 interleaved rounds of N+5 requests per path (the first 5 of each not counted).
CLIENT='
import http.client, json, statistics, sys, time
n = int(sys.argv[1])
def run(host, port, path, body, headers):
    c = http.client.HTTPConnection(host, port, timeout=30)
    out = []
    for i in range(n + 5):
        t = time.perf_counter()
        c.request("POST", path, body=json.dumps(body), headers=dict(headers, **{"content-type": "application/json"}))
        r = c.getresponse(); r.read()
        assert r.status == 200, r.status
        if i >= 5: out.append((time.perf_counter() - t) * 1000)
        if r.getheader("Connection", "").lower() == "close": c.close(); c = http.client.HTTPConnection(host, port, timeout=30)
    return statistics.median(out), sorted(out)[int(0.9 * len(out)) - 1]
words = int(sys.argv[2])
# A prompt of WORDS words (about as many tokens) when asked; else the tiny request of the issue.
vocab = "the quick brown fox reads a file then runs a tool and writes the result".split()
text = " ".join(vocab[i % len(vocab)] for i in range(words)) if words else "ping"
msg = [{"role": "user", "content": text}]
# Interleaved rounds, so that both paths see the same load of this shared machine.
ds, gs = [], []
for _ in range(5):
    ds.append(run("198.51.100.114", 8080, "/v1/chat/completions", {"model": "m", "messages": msg}, {}))
    gs.append(run("198.51.100.115", 3456, "/v1/messages", {"model": "m", "max_tokens": 16, "messages": msg}, {"x-api-key": "bench-token"}))
d = sorted(ds)[2]
g = sorted(gs)[2]
print("(each figure: the middle of 5 rounds of %d requests%s)" % (n, ", a prompt of %d words" % words if words else ""))
print("direct  (Chat Completions to the mock): median %.2f ms, p90 %.2f ms" % d)
print("gateway (Messages through the router):  median %.2f ms, p90 %.2f ms" % g)
print("added by the gateway: median %.2f ms, p90 %.2f ms" % (g[0] - d[0], g[1] - d[1]))
'
pid=$(podman inspect -f '{{.State.Pid}}' "$GW")
# cpu_ticks: the gateway's user + system time, in clock ticks (per-request CPU is what the
# router itself spends, whatever else this shared machine is running).
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }
# load WORDS: one client run (5 rounds of N+5 requests per path), then the gateway's CPU
# per request and its RSS, split into anonymous memory and mapped files (node's own library).
load() {
	c0=$(cpu_ticks)
	# shellcheck disable=SC2086
	podman run --rm $LIMITS --network "$NET" "$PYIMAGE" python3 -c "$CLIENT" "$N" "$1"
	c1=$(cpu_ticks)
	echo "gateway CPU per request: $(( (c1 - c0) * 1000000 / $(getconf CLK_TCK) / (5 * (N + 5)) )) us"
	echo "gateway container RSS after the load: $(awk '/^VmRSS/ { printf "%.1f MiB", $2 / 1024 }' "/proc/$pid/status") (its node process;" \
		"$(awk '/^Anonymous:/ { a = $2 } /^Rss:/ { r = $2 } END { printf "anonymous %.1f MiB, files %.1f MiB", a / 1024, (r - a) / 1024 }' "/proc/$pid/smaps_rollup"))"
}
load 0
# What a real CLI sends: claude's first request carries about 20,000 tokens of system prompt
# and tools, and the router counts every request's tokens (tiktoken) before it routes.
load "${BENCH_PROMPT_WORDS:-20000}"
