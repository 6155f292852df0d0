#!/bin/sh
# cli-sandbox-gateway: the gateway image's entrypoint. Writes claude-code-router's config
# from CLI_SANDBOX_GATEWAY_CONFIG (JSON made by host/cli-sandbox; it names the key and the
# run's token as $VARIABLES, which the router reads from its environment, so neither value
# is ever in its config file or an argument) and runs the router in the foreground.
#
# The two values come from /run/cli-sandbox-gateway/env (NAME=VALUE lines), a file the host
# script writes on memory-backed storage, mounts read-only and removes once the router
# answers: passed with -e, they would stay in the container's config on disk and in
# 'inspect'. Only these two names are taken from it. Without the file, the environment's.
set -eu
: "${CLI_SANDBOX_GATEWAY_CONFIG:?is not set: the host script passes the gateway config in it}"
secrets=/run/cli-sandbox-gateway/env
if [ -e "$secrets" ]; then
	# read and case are builtins: no value reaches a command line.
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in
		CLI_SANDBOX_GATEWAY_TOKEN=?*) CLI_SANDBOX_GATEWAY_TOKEN=${line#*=} ;;
		CLI_SANDBOX_UPSTREAM_KEY=?*) CLI_SANDBOX_UPSTREAM_KEY=${line#*=} ;;
		*) echo "cli-sandbox-gateway: $secrets: a line that is not CLI_SANDBOX_GATEWAY_TOKEN= or CLI_SANDBOX_UPSTREAM_KEY=: rewrite it with host/cli-sandbox" >&2; exit 78 ;;
		esac
	done <"$secrets"
	export CLI_SANDBOX_GATEWAY_TOKEN
	[ -z "${CLI_SANDBOX_UPSTREAM_KEY:-}" ] || export CLI_SANDBOX_UPSTREAM_KEY
fi
: "${CLI_SANDBOX_GATEWAY_TOKEN:?is not set: the gateway refuses to run without the run token}"
dir=$HOME/.claude-code-router
mkdir -p "$dir"
umask 077
printf '%s\n' "$CLI_SANDBOX_GATEWAY_CONFIG" >"$dir/config.json"
unset CLI_SANDBOX_GATEWAY_CONFIG
# Memory (docs/gateway.md, tests/bench/gateway.sh): untuned, the router's node holds about
# 170 MiB after 50 requests; these bring it to about 120 MiB.
# - --liftoff-only: the router counts every request's tokens with tiktoken's WebAssembly;
#   V8's optimizing tier for it keeps about 20 MiB of code and compiler memory. The cost is
#   the counting itself running about 1.5 times slower (about +10 ms of CPU on a
#   20,000-token request, whose model call takes seconds).
# - --max-semi-space-size=1: a young generation of 3 MiB instead of 48; the requests' own
#   objects are short-lived and small next to that.
# - --v8-pool-size=1 and MALLOC_ARENA_MAX=1: one V8 worker thread and one malloc arena,
#   not one per core; with the two thresholds glibc returns freed memory at once.
export MALLOC_ARENA_MAX=1 MALLOC_MMAP_THRESHOLD_=65536 MALLOC_TRIM_THRESHOLD_=65536
# node itself, not the ccr wrapper's #!: node takes V8's flags only on its command line.
exec node --liftoff-only --max-semi-space-size=1 --v8-pool-size=1 "$(command -v ccr)" start
