#!/bin/sh
# Benchmark (not a timed test): the key broker (docs/broker.md) against the direct path, side
# by side in one run, on the same mock Anthropic upstream (tests/broker/mock_upstream.py).
# A client container sends Messages requests on one keep-alive connection per path, straight
# to the upstream and through the broker (token checked, model checked, key set), in
# interleaved rounds, a tiny request and a claude-sized one (~100 kB), and prints p50/p99 of
# each path and what the broker adds; then the time to the first SSE byte; the broker's RSS
# (its processes' VmRSS, and its cgroup's memory.current) after the load; and its start:
# `podman run -d` until nginx listens, and its first process's start until then.
# Goals (issue 32): ≤ 0.3 ms p50 added, RSS ≤ 16 MiB, start ≤ 150 ms. Prints, asserts nothing
# but that the runs succeeded. The gateway's own figures: tests/bench/gateway.sh.
# Network: cli-sandbox-broker-bench-PID, 198.51.100.208/28, internal.
# usage: sh tests/bench/broker.sh  (root, podman; CLI_SANDBOX_BROKER_IMAGE, CLI_SANDBOX_PYTHON_IMAGE,
#        BENCH_REQUESTS per round (200), BENCH_ROUNDS (5))
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
# the broker's life cycle through cli-sandbox-ctl broker, as the runner calls it
# shellcheck source=tests/broker/ctl.sh
. "$ROOT/tests/broker/ctl.sh"
BIMAGE=${CLI_SANDBOX_BROKER_IMAGE:-localhost/cli-sandbox-broker:latest}
PYIMAGE=${CLI_SANDBOX_PYTHON_IMAGE:-localhost/cli-sandbox-python:test}
LIMITS="--runtime runc --ulimit nofile=1024:1024 --ulimit nproc=1000:1000"
NET=cli-sandbox-broker-bench-$$ UP=cs-broker-bench-up-$$ BR=cs-broker-bench-br-$$ CL=cs-broker-bench-cl-$$
DIR="" DIRV=""
cleanup() {
	for c in "$UP" "$CL"; do podman rm -f -t 0 "$c" >/dev/null 2>&1; done
	[ -z "$DIR" ] || broker_stop podman "$BR" "$DIR"
	[ -z "$DIRV" ] || rm -rf "$DIRV"
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

# start: from `podman run -d` until nginx listens, read from the host in the container's
# network namespace (/proc/PID/net/tcp: port 8080 = 1F90, LISTEN = 0A); and from the
# container's first process's start (its starttime, in clock ticks) until then.
t0=$(date +%s%N)
# shellcheck disable=SC2086
broker_start podman "$BR" "$BIMAGE" "$DIR" $LIMITS --network "$NET" --ip 198.51.100.211
t_run=$(date +%s%N)
pid=$(podman inspect -f '{{.State.Pid}}' "$BR")
i=0
until grep -q ':1F90 00000000:0000 0A' "/proc/$pid/net/tcp" 2>/dev/null; do
	i=$((i + 1))
	[ "$i" -lt 5000 ] || { echo "the broker did not listen"; exit 1; }
done
t_up=$(date +%s%N)
up_s=$(cut -d' ' -f1 /proc/uptime)
start_ticks=$(sed 's/.*) //' "/proc/$pid/stat" | cut -d' ' -f20)
echo "broker start: podman run -d returned after $(( (t_run - t0) / 1000000 )) ms, nginx listening $(( (t_up - t0) / 1000000 )) ms after podman run -d;" \
	"seen $(awk -v u="$up_s" -v s="$start_ticks" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.0f", (u - s / hz) * 1000 }') ms after its first process started (10 ms ticks)"
# nginx's own start, without the engine: exec of nginx until it listens, timed inside a
# container with the same image, confinement and files (BENCH_STARTS runs, default 7). Twice:
# with broker.conf as cli-sandbox-ctl broker writes it (its settings as `js_var` lines), and
# with the same values as `map` blocks, the form before (each `map` costs nginx a large hash's
# set-up at parse time, docs/broker.md "Start"), so that both forms are measured side by side.
# starts DIR: the ms of each run, on one line.
starts() {
	_own=""
	_n=0
	while [ "$_n" -lt "${BENCH_STARTS:-7}" ]; do
		_n=$((_n + 1))
		# shellcheck disable=SC2086,SC2016 # LIMITS is a list of words; the inner shell expands
		_own="$_own $(podman run --rm $LIMITS --network none --read-only --tmpfs /tmp:rw,size=16m,mode=1777 --cap-drop ALL \
			--security-opt no-new-privileges --user 1002:1002 --memory 64m --pids-limit 64 -v "$1:/run/broker:ro" \
			--entrypoint sh "$BIMAGE" -c 't0=$(date +%s%N); /usr/sbin/nginx -e stderr -c /usr/share/cli-sandbox-broker/nginx.conf 2>/dev/null &
				i=0; until grep -q ":1F90 00000000:0000 0A" /proc/net/tcp; do i=$((i + 1)); [ $i -lt 100000 ] || break; done
				echo $(( ($(date +%s%N) - t0) / 1000000 )); kill $!')"
	done
	echo "$_own"
}
DIRV=$(broker_dir_new)
cp "$DIR/key" "$DIR/broker.conf" "$DIRV/" && cp "$DIR/tokens/"* "$DIRV/tokens/"
# shellcheck disable=SC2016 # nginx's $variables, written as they are
sed -i 's/^js_var \(\$broker_[a-z_]*\) \("[^"]*"\);$/map "" \1 { default \2; }/' "$DIRV/broker.conf"
grep -q '^js_var ' "$DIRV/broker.conf" && { echo "broker.conf has a js_var line the bench cannot turn into a map"; exit 1; }
echo "load average before the starts: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "nginx start inside the container (exec to listening; ms), broker.conf as cli-sandbox-ctl broker writes it (js_var lines):$(starts "$DIR")"
echo "nginx start inside the container (exec to listening; ms), the same settings as map blocks (the form before):$(starts "$DIRV")"
echo "load average after the starts: $(cut -d' ' -f1-3 /proc/loadavg)"
rm -rf "$DIRV" && DIRV=""
podman exec "$CL" python3 /b/broker_measure.py latency 198.51.100.210:8080 198.51.100.211:8080 "$token" \
	"${BENCH_REQUESTS:-200}" "${BENCH_ROUNDS:-5}" 2>&1 | sed 's/^/  /'
# RSS counts the shared pages (libraries, the configuration) in both processes; PSS shares them out.
mem=$(podman exec "$BR" sh -c 'for p in /proc/[0-9]*; do grep -q "^Name:.nginx" $p/status 2>/dev/null || continue
	printf "%s RSS %s kB PSS %s kB; " "$(tr "\0" " " <$p/cmdline | cut -c1-20)" \
		"$(sed -n "s/^Rss:[[:space:]]*\([0-9]*\).*/\1/p" $p/smaps_rollup)" "$(sed -n "s/^Pss:[[:space:]]*\([0-9]*\).*/\1/p" $p/smaps_rollup)"; done')
echo "broker memory after the load: $mem"
echo "broker image: $(podman image inspect -f '{{.Size}}' "$BIMAGE") bytes"
