# host/lib/models.sh: before a run, ping or up on an Ollama endpoint, is its model installed
# shellcheck shell=sh
# (GET /api/tags from this host)? Sourced by host/cli-sandbox; docs/gateway.md. The models
# command (catalog, list, pull, use) is cli-sandbox-ctl's: docs/hostctl.md.

# ollama_base: set OB to the endpoint's native API base (the plan's EP_URL, host/lib/plan.sh).
ollama_base() {
	command -v curl >/dev/null 2>&1 || die "curl is needed to talk to Ollama: install curl"
	ep_base "$EP_URL" ollama; OB=$BASE
}

# ollama_names: print the installed models, one a line; dies when Ollama does not answer.
ollama_names() {
	_t=$(curl -sf --noproxy '*' --connect-timeout 3 --max-time 10 "$OB/api/tags" 2>/dev/null) ||
		die "Ollama at $OB does not answer: start it (ollama serve; OLLAMA_HOST=0.0.0.0 for containers) and check 'cli-sandbox endpoints list'"
	printf '%s\n' "$_t" | tr '{' '\n' | sed -n 's/.*"name": *"\([^"]*\)".*/\1/p'
}

# ollama_has MODEL: MODEL (or MODEL:latest) is installed.
ollama_has() {
	_m=$1
	case $_m in *:*) ;; *) _m=$_m:latest ;; esac
	ollama_names | grep -qxF -e "$1" -e "$_m"
}

# models_check_installed: before run, shell or up: on an Ollama endpoint with a model, stop
# early when the model is not installed (rather than a gateway error mid-session).
models_check_installed() {
	[ "$dry_run" = false ] && [ "$EP_TYPE" = ollama ] && [ -n "$EP_MODEL" ] || return 0
	ollama_base
	# From this host; where this host cannot reach the endpoint (it is on a container network
	# only the gateway reaches), ping and the gateway report a missing model instead.
	if ! curl -sf -o /dev/null --noproxy '*' --connect-timeout 3 --max-time 10 "$OB/api/tags" 2>/dev/null; then
		return 0
	fi
	shq "$EP_MODEL"
	ollama_has "$EP_MODEL" || die "model $EP_MODEL is not installed on endpoint '$endpoint': pull it with 'cli-sandbox --endpoint $endpoint models pull $Q', or choose another with 'models use'"
}
