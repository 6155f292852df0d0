# host/lib/shell-rc.sh: read by bash in 'cli-sandbox shell' (mounted read-only at
# /opt/cli-sandbox/shell-rc.sh; --rcfile for an interactive shell, BASH_ENV for bash -c), so
# that a CLI typed by hand takes the path 'cli-sandbox CLI' would (docs/gateway.md, "shell").
# The host script sets the base URLs (ANTHROPIC_BASE_URL: the gateway or an Anthropic
# endpoint; OPENAI_BASE_URL: a Responses endpoint); the credential is in the environment
# already, from the credentials file. These functions add what the init adds to a CLI's own
# command line and a shell cannot get from the environment alone.
# shellcheck shell=bash

# An interactive shell: the image's own rc first (--rcfile replaces it).
# shellcheck source=/dev/null
case $- in *i*) if [ -r "$HOME/.bashrc" ]; then . "$HOME/.bashrc"; fi ;; esac

# pi reads a provider's base URL only from an extension: the image's, which the init passes
# to a run's pi (entrypoint/clis/pi.c).
if [ -n "${ANTHROPIC_BASE_URL:-}${OPENAI_BASE_URL:-}" ]; then
	pi() { command pi -e /usr/local/share/cli-sandbox/pi-base-url.js "$@"; }
fi
# codex ignores OPENAI_BASE_URL: its base URL is the config key the init passes with -c.
if [ -n "${OPENAI_BASE_URL:-}" ]; then
	codex() { command codex -c "openai_base_url=\"$OPENAI_BASE_URL\"" "$@"; }
fi
