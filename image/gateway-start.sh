#!/bin/sh
# cli-sandbox-gateway: the gateway image's entrypoint. Writes claude-code-router's config
# from CLI_SANDBOX_GATEWAY_CONFIG (JSON made by host/cli-sandbox; it names the key and the
# run's token as $VARIABLES, which the router reads from its environment, so neither value
# is ever in a file or an argument) and runs the router in the foreground.
set -eu
: "${CLI_SANDBOX_GATEWAY_CONFIG:?is not set: the host script passes the gateway config in it}"
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
