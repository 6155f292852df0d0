#!/bin/sh
# Benchmark (not a timed test): the key broker (docs/broker.md) against the direct path, side
# by side in one run, on the same mock Anthropic upstream (tests/broker/mock_upstream.py).
# A client container sends Messages requests on one keep-alive connection per path, straight
# to the upstream and through the broker (token checked, model checked, key set), in
# interleaved rounds, a tiny request and a claude-sized one (~100 kB), and prints p50/p99 of
# each path and what the broker adds; then the time to the first SSE byte; the broker's RSS
# (its processes' VmRSS, and its cgroup's memory.current) after the load; and its start:
# `podman run -d` to the first TCP connect that succeeds (seen from a container already on
# the network), and the container's own start (StartedAt) to that connect.
# Goals (issue 32): ≤ 0.3 ms p50 added, RSS ≤ 16 MiB, start ≤ 150 ms. Prints, asserts nothing
# but that the runs succeeded. The gateway's own figures: tests/bench/gateway.sh.
# Network: cli-sandbox-broker-bench-PID, 198.51.100.208/28, internal.
# usage: sh tests/bench/broker.sh  (root, podman; CLI_SANDBOX_BROKER_IMAGE, CLI_SANDBOX_PYTHON_IMAGE,
#        BENCH_REQUESTS per round (200), BENCH_ROUNDS (5))
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$ROOT/host/lib/broker.sh"
BIMAGE=${CLI_SANDBOX_BROKER_IMAGE:-localhost/cli-sandbox-broker:latest}
PYIMAGE=${CLI_SANDBOX_PYTHON_IMAGE:-localhost/cli-sandbox-python:test}
LIMITS="--runtime runc --ulimit nofile=1024:1024 --ulimit nproc=1000:1000"
NET=cli-sandbox-broker-bench-$$ UP=cs-broker-bench-up-$$ BR=cs-broker-bench-br-$$ CL=cs-broker-bench-cl-$$
DIR=""
cleanup() {
	for c in "$UP" "$CL"; do podman rm -f -t 0 "$c" >/dev/null 2>&1; done
	[ -z "$DIR" ] || broker_stop podman "$BR" "$DIR"
	podman network rm "$NET" >/dev/null 2>&1 || true
}
trap cleanup EXIT
sh "$ROOT/tests/gateway/make-python-image.sh" "$PYIMAGE"
podman network create --internal --subnet 198.51.100.208/28 "$NET" >/dev/null
# shellcheck disable=SC2086 # LIMITS is a list of words
podman run -d --name "$UP" $LIMITS --network "$NET" --ip 198.51.100.210 -v "$ROOT/tests/broker:/t:ro" \
	"$PYIMAGE" python3 /t/mock_upstream.py --port 8080 >/dev/null
# shellcheck disable=SC2086
podman run -d --name "$CL" $LIMITS --network "$NET" --ip 198.51.100.212 -v "$HERE:/b:ro" \
	--entrypoint sleep "$PYIMAGE" 600 >/dev/null
DIR=$(broker_dir_new)
broker_config_write "$DIR" anthropic http://198.51.100.210:8080 claude-test-1 refuse
printf '%s' "sk-bench-key-not-secret" | broker_key_write "$DIR"
token=$(broker_token_add "$DIR")

# start: the client polls the broker's port before the broker exists
podman exec "$CL" python3 /b/broker_measure.py wait 198.51.100.211 8080 >"$DIR.wait" &
waiter=$!
sleep 0.3
t0=$(date +%s.%N)
# shellcheck disable=SC2086
broker_start podman "$BR" "$BIMAGE" "$DIR" $LIMITS --network "$NET" --ip 198.51.100.211
wait "$waiter"
up=$(cat "$DIR.wait")
rm -f "$DIR.wait"
started=$(podman inspect -f '{{.State.StartedAt}}' "$BR")
python3 - "$t0" "$up" "$started" <<'PY'
import sys, datetime, re
t0, up, started = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
m = re.match(r"(\d+-\d+-\d+ \d+:\d+:\d+)(\.\d+)? ([+-]\d{4})", started)
s = datetime.datetime.strptime(m.group(1) + " " + m.group(3), "%Y-%m-%d %H:%M:%S %z").timestamp() + float(m.group(2) or 0)
print("broker start: podman run -d to answering %.0f ms; container started to answering %.0f ms" % ((up - t0) * 1e3, (up - s) * 1e3))
PY
podman exec "$CL" python3 /b/broker_measure.py latency 198.51.100.210:8080 198.51.100.211:8080 "$token" \
	"${BENCH_REQUESTS:-200}" "${BENCH_ROUNDS:-5}" 2>&1 | sed 's/^/  /'
rss=$(podman exec "$BR" sh -c 'for s in /proc/[0-9]*/status; do grep -q "^Name:.nginx" "$s" && sed -n "s/^VmRSS:[[:space:]]*//p" "$s"; done' | tr '\n' ' ')
cg=$(podman exec "$BR" cat /sys/fs/cgroup/memory.current 2>/dev/null || echo '?')
echo "broker RSS after the load: nginx processes $rss(master, worker); cgroup memory.current $cg bytes"
echo "broker image: $(podman image inspect -f '{{.Size}}' "$BIMAGE") bytes"
