# tests/broker/ctl.sh: the key broker's life cycle as the tests and the bench call it: through
# shellcheck shell=sh
# cli-sandbox-ctl broker (docs/broker.md), the program built in this tree (CLI_SANDBOX_CTL,
# else build/hostctl/), called as the runner calls it. Sourced with ROOT set.
CTL=${CLI_SANDBOX_CTL:-$ROOT/build/hostctl/cli-sandbox-ctl}
[ -x "$CTL" ] || { echo "Bail out! no cli-sandbox-ctl at $CTL: build it (cmake --build build --target cli-sandbox-ctl) or set CLI_SANDBOX_CTL"; exit 1; }
broker_dir_new() { "$CTL" broker dir; }
broker_config_write() { "$CTL" broker config "$@"; }
broker_key_write() { "$CTL" broker key "$@"; }
broker_token_add() { "$CTL" broker token-add "$@"; }
broker_token_revoke() { "$CTL" broker token-revoke "$@"; }
broker_start() { "$CTL" broker start "$@"; }
broker_wait() { "$CTL" broker wait "$@"; }
broker_stop() { "$CTL" broker stop "$@"; }
