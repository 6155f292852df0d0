# host/lib/gateway.sh: which path a CLI takes to an endpoint (direct or through the gateway),
# shellcheck shell=sh
# and the gateway's container beside the sandbox. Sourced by host/cli-sandbox; docs/gateway.md.
#
# The gateway is claude-code-router in its own image (Dockerfile target gateway). It serves
# Anthropic Messages to the sandbox and speaks Chat Completions (or Messages) upstream. It
# alone holds the endpoint's key (read from the variable the endpoint names, passed in a file
# on memory-backed storage: gw_secrets_write); the sandbox gets a per-run token that the
# router requires on every request (its APIKEY: x-api-key or Bearer, else 401). Neither value
# is in an argument, the engine's inspect output or the router's config, which names them as
# $VARIABLES.

GW_PORT=3456
gw_image=${CLI_SANDBOX_GATEWAY_IMAGE:-}

# gw_image_name: set gw_image to the gateway's image next to $image when not chosen:
# REPOSITORY-gateway:TAG (what image/build.sh --cli gateway builds).
gw_image_name() {
	[ -z "$gw_image" ] || return 0
	case ${image##*/} in
	*:*) gw_image=${image%:*}-gateway:${image##*:} ;;
	*) gw_image=$image-gateway:latest ;;
	esac
}

# ------------------------------------------------------------------ the plan
# plan_backend CLI NAME KEEP_OUT: decide how CLI reaches endpoint NAME. Sets
#   PLAN      direct | gateway | legacy (an endpoint recorded without a type: the URL as is)
#   CLI_API   what the CLI speaks on its path: anthropic | responses | chat
#   CRED_VAR  the CLI's credential variable on that path
#   UP_API    gateway only: what the gateway speaks upstream: chat | anthropic
#   URL_FORM  how the CLI is given the URL: root (no /v1: the CLI, or the init for it, adds
#             /v1) | v1 (ends in /v1)
#   CLI_ENV   NAME=VALUE for the sandbox that tells the CLI its provider and model (no secret
#             in it), or empty
#   KEY_TO    the variable the endpoint's key goes to (empty: the CLI's first, host/cli-sandbox)
#   NO_KEY    true when the path needs no key at all (the CLI then gets none of the person's)
#   PLACEHOLDER_KEY  a key that is no secret, for a CLI that needs one where the path needs none
#   EP_URL EP_TYPE EP_MODEL EP_KEYENV EP_SPEAKS  the endpoint's record
# Dies, before anything starts, on a combination no path serves, naming what would work.
plan_backend() {
	_c=$1 _n=$2 _out=$3
	EP_URL=$(endpoint_url "$_n") || die "no endpoint named '$_n': see 'cli-sandbox endpoints list'"
	EP_TYPE=$(ep_get "$_n" type) EP_MODEL=$(ep_get "$_n" model)
	EP_KEYENV=$(ep_get "$_n" key-env) EP_SPEAKS=$(ep_get "$_n" speaks)
	shq "$EP_URL"; EP_URLQ=$Q  # for the fixes printed (a person's URL, pasted into a shell)
	PLAN=legacy CLI_API='' CRED_VAR='' UP_API='' URL_FORM=root CLI_ENV='' KEY_TO='' NO_KEY=false PLACEHOLDER_KEY=''
	[ -n "$EP_TYPE" ] || return 0
	_up=chat
	case ,$EP_SPEAKS, in *,chat,*) ;; *) _up='' ;; esac
	case $_c in
	claude | pi)
		CLI_API=anthropic CRED_VAR=ANTHROPIC_API_KEY
		case ,$EP_SPEAKS, in
		*,anthropic,*) if [ "$_out" = true ]; then PLAN=gateway UP_API=anthropic; else PLAN=direct; fi ;;
		*) [ -n "$_up" ] || die "$_c needs Anthropic Messages, and endpoint '$_n' speaks ${EP_SPEAKS:-nothing known} (no Chat Completions for the gateway to translate to): re-probe it with 'cli-sandbox endpoints add $_n $EP_URLQ', or use an Anthropic, OpenAI-compatible or Ollama endpoint"
		   PLAN=gateway UP_API=chat ;;
		esac ;;
	codex)
		# codex 0.171 exec sends CODEX_API_KEY, not OPENAI_API_KEY (a mock that requires the key
		# saw no Authorization with OPENAI_API_KEY alone); the init takes either for auth.json.
		CLI_API=responses CRED_VAR=CODEX_API_KEY
		case ,$EP_SPEAKS, in
		*,responses,*) ;;
		*) die "codex needs the OpenAI Responses API (POST /v1/responses), which endpoint '$_n' does not serve (it speaks ${EP_SPEAKS:-nothing known}), and no maintained gateway here translates Responses to it: run claude or pi against '$_n' (through the gateway), or point codex at an endpoint that serves /v1/responses (OpenAI, a recent Ollama)" ;;
		esac
		[ "$_out" = false ] || die "--keep-keys-out is not available for codex: the gateway serves Anthropic Messages only, codex needs Responses; run codex without it (its key then reaches the sandbox), or use claude or pi"
		# A keyless Ollama: codex will not start without a credential, and Ollama ignores the
		# one it gets (its OpenAI-compatibility docs pass api_key "ollama"). That placeholder,
		# not one of the person's keys: theirs must not go to a server that asked for none.
		[ -n "$EP_KEYENV" ] || [ "$EP_TYPE" != ollama ] || PLACEHOLDER_KEY=ollama
		PLAN=direct URL_FORM=v1 ;;
	gemini)
		# Gemini CLI 0.61 speaks only the Gemini API (POST .../v1beta/models/M:generateContent,
		# GOOGLE_GEMINI_BASE_URL), which no endpoint type is. claude-code-router 2.0.0 has a
		# Gemini transformer with an inbound route, but it names the provider only for paths
		# ending in /v1/messages: /v1beta/models/... answers 404 "Provider 'undefined' not
		# found" (tried, docs/gateway.md). So no path serves it.
		die "gemini speaks only Google's Gemini API (POST /v1beta/models/MODEL:generateContent), which endpoint '$_n' (type $EP_TYPE, speaks ${EP_SPEAKS:-nothing known}) does not serve, and the gateway serves only Anthropic Messages to the sandbox: run claude, pi or opencode against '$_n', or run gemini against a Gemini API server with '--managed URL' (its key in GEMINI_API_KEY)" ;;
	opencode) plan_opencode "$_n" "$_out" ;;
	esac
	if [ "$PLAN" = gateway ] && [ -z "$EP_MODEL" ]; then
		die "endpoint '$_n' has no model, and the gateway must name one upstream: set it with 'cli-sandbox endpoints add $_n $EP_URLQ --model M' (Ollama: 'cli-sandbox --endpoint $_n models use M')"
	fi
	if [ -n "$EP_KEYENV" ]; then
		var_get "$EP_KEYENV"
		[ -n "$VAL" ] || die "the key variable $EP_KEYENV of endpoint '$_n' is not set: export $EP_KEYENV in your shell (its value is never printed), or re-add the endpoint without --key-env"
	fi
}

# plan_opencode NAME KEEP_OUT: opencode's path (part of plan_backend). opencode 1.18 has the AI
# SDK providers for all three APIs built in (@ai-sdk/anthropic, @ai-sdk/openai-compatible,
# @ai-sdk/openai), so it goes direct to any endpoint: a provider of its own, "cli-sandbox",
# in OPENCODE_CONFIG_CONTENT, its base URL and key named as {env:VAR} (opencode substitutes
# them; the values stay out of the config) and the endpoint's model as opencode's model.
# Messages where the endpoint speaks it, else Chat Completions (the API the most servers,
# Ollama's /v1 included, implement in full), else Responses. --keep-keys-out: the gateway,
# which opencode reaches as an Anthropic provider.
plan_opencode() {
	case ,$EP_SPEAKS, in
	*,anthropic,*) CLI_API=anthropic _up=anthropic ;;
	*,chat,*) CLI_API=chat _up=chat ;;
	*,responses,*) CLI_API=responses _up='' ;;
	*) die "opencode needs Anthropic Messages, OpenAI Chat Completions or Responses, and endpoint '$1' speaks ${EP_SPEAKS:-nothing known}: re-probe it with 'cli-sandbox endpoints add $1 $EP_URLQ' (Ollama serves Chat Completions at /v1 since 0.1.24)" ;;
	esac
	[ -n "$EP_MODEL" ] || die "endpoint '$1' has no model, and opencode must be told one for its provider: set it with 'cli-sandbox endpoints add $1 $EP_URLQ --model M' (Ollama: 'cli-sandbox --endpoint $1 models use M')"
	PLAN=direct
	if [ "$2" = true ]; then
		[ -n "$_up" ] || die "--keep-keys-out is not available for opencode against endpoint '$1': it speaks only Responses, and the gateway translates to Chat Completions or Messages; run opencode without it (its key then reaches the sandbox)"
		PLAN=gateway UP_API=$_up CLI_API=anthropic
	fi
	case $CLI_API in
	anthropic) CRED_VAR=ANTHROPIC_API_KEY _npm=@ai-sdk/anthropic _base=ANTHROPIC_BASE_URL ;;
	chat) CRED_VAR=OPENAI_API_KEY _npm=@ai-sdk/openai-compatible _base=OPENAI_BASE_URL ;;
	responses) CRED_VAR=OPENAI_API_KEY _npm=@ai-sdk/openai _base=OPENAI_BASE_URL ;;
	esac
	# The key only in the variable this provider reads (not also in ANTHROPIC_API_KEY, which
	# opencode's own anthropic provider would take); an Ollama without key-env needs none.
	KEY_TO=$CRED_VAR
	[ "$PLAN" = gateway ] || [ -n "$EP_KEYENV" ] || [ "$EP_TYPE" != ollama ] || NO_KEY=true
	# The init gives opencode both base URLs as TASK_AGENT_MODEL_BASE_URL + /v1 (its row's
	# base_url_suffix), which is what the AI SDK providers take.
	URL_FORM=root
	CLI_ENV="OPENCODE_CONFIG_CONTENT={\"provider\":{\"cli-sandbox\":{\"npm\":\"$_npm\",\"name\":\"cli-sandbox\",\"options\":{\"baseURL\":\"{env:$_base}\",\"apiKey\":\"{env:$CRED_VAR}\"},\"models\":{$(json_str "$EP_MODEL"):{\"tool_call\":true}}}},\"model\":$(json_str "cli-sandbox/$EP_MODEL")}"
}

# plan_cli_url: set CLI_URL, the URL the sandbox's CLI is given on a direct path.
plan_cli_url() {
	case $URL_FORM in
	root) ep_base "$EP_URL" anthropic ;;
	v1) ep_base "$EP_URL" responses ;;
	esac
	CLI_URL=$BASE
}

# ------------------------------------------------------------------ the gateway's container


# gw_config UPSTREAM-URL: print the router's config (no secret in it: $VARIABLES only).
gw_config() {
	if [ "$UP_API" = anthropic ]; then
		ep_base "$1" anthropic; _api=$BASE/v1/messages
		_tr=',"transformer":{"use":["Anthropic"]}'
	else
		ep_base "$1" chat; _api=$BASE/chat/completions
		_tr=''
	fi
	_key='none'
	[ -z "$EP_KEYENV" ] || _key='$CLI_SANDBOX_UPSTREAM_KEY'
	printf '{"HOST":"0.0.0.0","PORT":%s,"APIKEY":"$CLI_SANDBOX_GATEWAY_TOKEN","LOG":false,"API_TIMEOUT_MS":600000,"Providers":[{"name":"upstream","api_base_url":%s,"api_key":"%s","models":[%s]%s}],"Router":{"default":%s}}' \
		"$GW_PORT" "$(json_str "$_api")" "$_key" "$(json_str "$EP_MODEL")" "$_tr" "$(json_str "upstream,$EP_MODEL")"
}

# gw_host_url URL: set HOST_URL to URL as the gateway reaches it: a host-local endpoint
# (localhost, 127.0.0.1, host) at this host's address on the network the gateway's container
# is started on (CLI_SANDBOX_GATEWAY_UPSTREAM_NETWORK's gateway, else the engine's default
# network's), unless CLI_SANDBOX_HOST_ADDRESS names it. Sets ERR and fails when unknown.
gw_host_url() {
	HOST_NET=${CLI_SANDBOX_GATEWAY_UPSTREAM_NETWORK:-}
	host_url "$1"
	_rc=$? HOST_NET=''
	return $_rc
}

# gw_token: set TOKEN to a fresh random token (128 bits, hex).
gw_token() {
	TOKEN=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
	[ ${#TOKEN} -eq 32 ] || die "cannot read 16 random bytes from /dev/urandom for the gateway's token"
}

# gw_names NAME: set GW_CT (the container) and GW_NET (the sandbox's network) for NAME.
gw_names() {
	GW_CT=cli-sandbox-gw-$1
	GW_NET=${CLI_SANDBOX_GATEWAY_NETWORK:-$GW_CT}
}

# gw_cmd_net: the engine command that makes the sandbox's network, internal (no route out).
gw_cmd_net() {
	CMD=
	add network create --internal
	[ -z "${CLI_SANDBOX_GATEWAY_SUBNET:-}" ] || add --subnet "$CLI_SANDBOX_GATEWAY_SUBNET"
	add "$GW_NET"
}

# gw_cmd_run UPSTREAM-URL: the engine command that starts the gateway's container, on the
# network that reaches the upstream (CLI_SANDBOX_GATEWAY_UPSTREAM_NETWORK, else the engine's
# default). The key and the token go by name: their values are only in the engine's environment.
# Its own confinement: no capability, no privilege gain, a read-only root with the router's
# state (its config, pid file and ~/.claude.json, a few KiB) in a small tmpfs that HOME names
# (a tmpfs on the image's /home/gateway would be root's 700 copy under podman, and neither
# engine takes a tmpfs uid= here), and bounds on processes and memory (about 11 threads and
# 150-170 MiB measured; docs/gateway.md). Before CLI_SANDBOX_ENGINE_ARGS, whose words then win.
gw_cmd_run() {
	CMD=
	add run -d --name "$GW_CT"
	add --read-only --tmpfs "/tmp:rw,nosuid,nodev,noexec,size=16m,mode=1777" -e HOME=/tmp
	add --cap-drop=ALL --security-opt=no-new-privileges
	add --pids-limit "${CLI_SANDBOX_GATEWAY_PIDS_LIMIT:-128}"
	add --memory "${CLI_SANDBOX_GATEWAY_MEMORY:-512m}" --memory-swap "${CLI_SANDBOX_GATEWAY_MEMORY:-512m}"
	for _a in ${CLI_SANDBOX_ENGINE_ARGS:-}; do add "$_a"; done
	[ -z "${CLI_SANDBOX_GATEWAY_UPSTREAM_NETWORK:-}" ] || add --network "$CLI_SANDBOX_GATEWAY_UPSTREAM_NETWORK"
	add --label io.cli-sandbox.role=gateway
	add -e "CLI_SANDBOX_GATEWAY_CONFIG=$(gw_config "$1")"
	if [ -n "$GW_SECRET_FILE" ]; then
		# The token and the key from the file; the image's own entrypoint then runs as before.
		add -v "$GW_SECRET_FILE:$GW_SECRET_MOUNT:ro" --entrypoint /bin/sh "$gw_image"
		add -c "set -a && . $GW_SECRET_MOUNT && set +a && exec /usr/local/bin/cli-sandbox-gateway"
	else
		add -e CLI_SANDBOX_GATEWAY_TOKEN
		[ -z "$EP_KEYENV" ] || add -e CLI_SANDBOX_UPSTREAM_KEY
		add "$gw_image"
	fi
}

# The gateway's secrets (the run's token, the endpoint's key) reach its container as the
# sandbox's credentials do (issue 20): in a file on memory-backed storage, in a private
# directory made for this start, mounted read-only, never -e with a value the engine would keep
# in the container's config (inspect's Config.Env, and its files on disk). The start script
# reads the environment, so a shell before it reads the file ('set -a; . FILE'); the values are
# written single-quoted (quote), so the file is only assignments. The directory goes once the
# gateway answers (its process holds the values; the mount keeps the file's memory until the
# container ends), or on any way out (on_exit). Without a memory-backed directory: -e by name,
# with a warning, as for the sandbox.
GW_SECRET_MOUNT=/run/cli-sandbox-gateway/env
GW_SECRET_DIR='' GW_SECRET_FILE=''

# gw_secrets_path: set GW_SECRET_FILE to where the file goes (GW_SECRET_DIR its directory), or
# both empty when no memory-backed directory exists.
gw_secrets_path() {
	GW_SECRET_DIR='' GW_SECRET_FILE=''
	for _b in "${XDG_RUNTIME_DIR:-}" /dev/shm; do
		case $_b in *:*) continue ;; esac  # the engine's -v cannot mount a path with ':'
		if memory_dir "$_b"; then
			# The name's random part comes when gw_secrets_write makes the directory
			# (host/lib/protect.sh); till then there is none to remove.
			GW_SECRET_FILE=$_b/cli-sandbox-gateway.RANDOM/env
			return 0
		fi
	done
	warn "no memory-backed directory for the gateway's secrets (XDG_RUNTIME_DIR or /dev/shm on tmpfs): passing its token and key by name (-e), so their values are kept in its container's config, readable with '$engine inspect' by whoever may use $engine"
}

# gw_secrets_write TOKEN KEY: make the private directory and write the file (mode 644 in a 700
# directory: the router runs as the image's uid 1001, which owns neither; no other user of
# this host can enter the directory).
gw_secrets_write() {
	[ -n "$GW_SECRET_FILE" ] || return 0
	case $1$2 in *"$NL"*) die "the key of endpoint '$endpoint' (\$$EP_KEYENV) has a line break: set the variable to the key alone" ;; esac
	# A name no other user can guess (and so cannot take first), made with mkdir, mode 700.
	private_dir "${GW_SECRET_FILE%/cli-sandbox-gateway.RANDOM/env}" cli-sandbox-gateway
	GW_SECRET_DIR=$PRIVATE_DIR GW_SECRET_FILE=$PRIVATE_DIR/env
	# Removed on every way out; a signal ends the script, so that the EXIT trap runs (the shell
	# would not run it when killed by the signal itself).
	trap on_exit EXIT
	trap 'exit 129' HUP
	trap 'exit 130' INT
	trap 'exit 143' TERM
	quote "$1"; _tq=$Q
	quote "$2"; _kq=$Q
	# printf is a builtin: no value reaches a command line.
	(umask 022 && printf 'CLI_SANDBOX_GATEWAY_TOKEN=%s\nCLI_SANDBOX_UPSTREAM_KEY=%s\n' "$_tq" "$_kq" >"$GW_SECRET_FILE") ||
		{ rm -rf -- "$GW_SECRET_DIR"; die "cannot write the gateway's secrets in $GW_SECRET_DIR: check the space on ${GW_SECRET_DIR%/*}"; }
}

# gw_secrets_remove: remove the directory (whatever of it exists).
gw_secrets_remove() {
	[ -z "$GW_SECRET_DIR" ] || rm -rf -- "$GW_SECRET_DIR"
}

# gw_print_plan UPSTREAM-URL: what a dry run prints before the sandbox's command.
gw_print_plan() {
	_saved=$CMD _upurl=$1
	gw_image_name
	gw_secrets_path
	echo "# the translator behind the key broker (claude-code-router; it holds the key, the broker its token):"
	gw_cmd_net; eval "set -- $GLOBAL_Q $CMD"; print_cmd "$engine" "$@"
	gw_cmd_run "$_upurl"; eval "set -- $GLOBAL_Q $CMD"; print_cmd "$engine" "$@"
	CMD=; add network connect "$GW_NET" "$GW_CT"; eval "set -- $GLOBAL_Q $CMD"; print_cmd "$engine" "$@"
	echo "# the router is reachable from the key broker alone, on $GW_NET (the sandbox is not on it):"
	CMD=$_saved
}

# gw_ip: set GW_IP to the gateway's address on the sandbox's network.
gw_ip() {
	GW_IP=$(eng inspect -f "{{(index .NetworkSettings.Networks \"$GW_NET\").IPAddress}}" "$GW_CT" 2>/dev/null) || GW_IP=
	case $GW_IP in *.*.*.*) ;; *) return 1 ;; esac
}

# gw_wait: wait (at most CLI_SANDBOX_GATEWAY_WAIT seconds, default 30) until the router
# answers inside its container; fails when it does not or its container ended.
gw_wait() {
	_i=0 _max=${CLI_SANDBOX_GATEWAY_WAIT:-30}
	while [ "$_i" -lt $((_max * 5)) ]; do
		if eng exec "$GW_CT" node -e "fetch('http://127.0.0.1:$GW_PORT/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))" >/dev/null 2>&1; then
			return 0
		fi
		[ "$(eng inspect -f '{{.State.Running}}' "$GW_CT" 2>/dev/null)" = true ] || return 1
		sleep 0.2
		_i=$((_i + 1))
	done
	return 1
}

# gw_remove: remove the gateway's container and network (whatever of them exists).
gw_remove() {
	eng rm -f "$GW_CT" >/dev/null 2>&1 || true
	eng network rm "$GW_NET" >/dev/null 2>&1 || true
}

# gw_start UPSTREAM-URL: make the network, start the gateway with a fresh token, wait for it.
# Sets TOKEN and GW_IP; on any failure removes what it made and dies with the fix.
gw_start() {
	_saved=$CMD _upurl=$1
	gw_image_name
	eng image inspect "$gw_image" >/dev/null 2>&1 || die "the gateway's image $gw_image is not present in $engine: build it with 'sh image/build.sh --cli gateway' (or set CLI_SANDBOX_GATEWAY_IMAGE)"
	if eng inspect "$GW_CT" >/dev/null 2>&1; then
		die "a container named $GW_CT already exists: stop it with 'cli-sandbox down' (or '$engine rm -f $GW_CT')"
	fi
	gw_token
	gw_cmd_net; eval "set -- $CMD"
	_err=$(eng "$@" 2>&1 >/dev/null) || die "cannot create the gateway's network $GW_NET: $(printf '%s\n' "$_err" | tail -n 1); remove a leftover with '$engine network rm $GW_NET' or choose another CLI_SANDBOX_GATEWAY_SUBNET"
	VAL=''
	[ -z "$EP_KEYENV" ] || var_get "$EP_KEYENV"
	_kv=$VAL
	gw_secrets_path
	gw_secrets_write "$TOKEN" "$_kv"
	gw_cmd_run "$_upurl"; eval "set -- $CMD"
	if [ -n "$GW_SECRET_FILE" ]; then
		_err=$(eng "$@" 2>&1 >/dev/null)
	else
		_err=$(CLI_SANDBOX_GATEWAY_TOKEN=$TOKEN CLI_SANDBOX_UPSTREAM_KEY=$_kv; export CLI_SANDBOX_GATEWAY_TOKEN CLI_SANDBOX_UPSTREAM_KEY; eng "$@" 2>&1 >/dev/null)
	fi || {
		gw_remove; gw_secrets_remove
		die "the gateway did not start: $(printf '%s\n' "$_err" | tail -n 1); check '$engine images $gw_image' and CLI_SANDBOX_GATEWAY_UPSTREAM_NETWORK"
	}
	_err=$(eng network connect "$GW_NET" "$GW_CT" 2>&1) || { gw_remove; gw_secrets_remove; die "cannot attach the gateway to $GW_NET: $(printf '%s\n' "$_err" | tail -n 1)"; }
	if ! gw_wait || ! gw_ip; then
		_log=$(eng logs "$GW_CT" 2>&1 | tail -n 1)
		gw_remove; gw_secrets_remove
		die "the gateway did not answer within ${CLI_SANDBOX_GATEWAY_WAIT:-30} seconds (${_log:-no output}): check the endpoint with 'cli-sandbox doctor' and the image with 'sh image/build.sh --cli gateway'"
	fi
	gw_secrets_remove
	CMD=$_saved
}

# gw_state NAME: load a gateway that 'up' left running for NAME (GW_IP, TOKEN); fail when
# there is none or it is no longer running (its stale state is then removed).
gw_state() {
	_f=$conf/gateway/$1
	[ -f "$_f" ] || return 1
	GW_CT=$(sed -n 's/^container=//p' "$_f") GW_NET=$(sed -n 's/^network=//p' "$_f")
	GW_IP=$(sed -n 's/^ip=//p' "$_f") TOKEN=$(sed -n 's/^token=//p' "$_f")
	if [ "$(eng inspect -f '{{.State.Running}}' "$GW_CT" 2>/dev/null)" != true ]; then
		gw_remove
		rm -f -- "$_f"
		return 1
	fi
}

# gw_up NAME: start a long-lived gateway for NAME (its state: container, network, address
# and token, in a 0600 file; never the key).
gw_up() {
	if gw_state "$1"; then echo "the gateway for '$1' is already running at $GW_IP:$GW_PORT ($GW_CT)"; return 0; fi
	gw_names "$1"
	gw_host_url "$EP_URL" || die "$ERR"
	gw_start "$HOST_URL"
	mkdir -p -- "$conf/gateway" || die "cannot create $conf/gateway: check the permissions of $conf"
	(umask 077 && printf 'container=%s\nnetwork=%s\nip=%s\ntoken=%s\n' "$GW_CT" "$GW_NET" "$GW_IP" "$TOKEN" >"$conf/gateway/$1") ||
		{ gw_remove; die "cannot write $conf/gateway/$1: check its permissions"; }
	echo "the gateway for '$1' is up at $GW_IP:$GW_PORT ($GW_CT, network $GW_NET); stop it with 'cli-sandbox down'"
}

gw_down() {
	if gw_state "$1"; then
		gw_remove
		rm -f -- "$conf/gateway/$1"
		echo "the gateway for '$1' is stopped"
	else
		gw_names "$1"
		gw_remove
		echo "no gateway was running for '$1'"
	fi
}
