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
exec ccr start
