# host/lib/gateway.sh: the gateway's (the translator's) container beside the key broker, where
# shellcheck shell=sh
# the plan (cli-sandbox-ctl plan, read by host/lib/plan.sh) routes through it. Sourced by
# host/cli-sandbox; docs/gateway.md.
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

# ------------------------------------------------------------------ the gateway's container


# gw_config UPSTREAM-URL: print the router's config (no secret in it: $VARIABLES only), built
# by cli-sandbox-ctl with jansson.
gw_config() {
	ctl_find
	_keyed=keyed
	[ -n "$EP_KEYENV" ] || _keyed=keyless
	"$CTL" session gateway-config "$UP_API" "$1" "$EP_MODEL" "$_keyed"
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
	_cfg=$(gw_config "$1") || die "cannot build the gateway's configuration (above)"
	CMD=
	add run -d --name "$GW_CT"
	add --read-only --tmpfs "/tmp:rw,nosuid,nodev,noexec,size=16m,mode=1777" -e HOME=/tmp
	add --cap-drop=ALL --security-opt=no-new-privileges
	add --pids-limit "${CLI_SANDBOX_GATEWAY_PIDS_LIMIT:-128}"
	add --memory "${CLI_SANDBOX_GATEWAY_MEMORY:-512m}" --memory-swap "${CLI_SANDBOX_GATEWAY_MEMORY:-512m}"
	for _a in ${CLI_SANDBOX_ENGINE_ARGS:-}; do add "$_a"; done
	[ -z "${CLI_SANDBOX_GATEWAY_UPSTREAM_NETWORK:-}" ] || add --network "$CLI_SANDBOX_GATEWAY_UPSTREAM_NETWORK"
	add --label io.cli-sandbox.role=gateway
	add -e "CLI_SANDBOX_GATEWAY_CONFIG=$_cfg"
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

# memory_dir DIR: DIR (XDG_RUNTIME_DIR or /dev/shm) is a directory on tmpfs (or ramfs),
# writable by this user: runner --argv said which (statfs: MEM_DIRS); a path its line could not
# carry counts as none (the secrets then go by name, with the warning).
memory_dir() {
	[ -n "$1" ] && [ -d "$1" ] && [ -w "$1" ] && [ -x "$1" ] || return 1
	case $NL$MEM_DIRS in *"$NL$1$NL"*) return 0 ;; esac
	return 1
}

# gw_secrets_path: set GW_SECRET_FILE to where the file goes (GW_SECRET_DIR its directory), or
# both empty when no memory-backed directory exists.
gw_secrets_path() {
	GW_SECRET_DIR='' GW_SECRET_FILE=''
	for _b in "${XDG_RUNTIME_DIR:-}" /dev/shm; do
		case $_b in *:*) continue ;; esac  # the engine's -v cannot mount a path with ':'
		if memory_dir "$_b"; then
			# The name's random part comes when gw_secrets_write makes the directory
			# (private_dir); till then there is none to remove.
			GW_SECRET_FILE=$_b/cli-sandbox-gateway.RANDOM/env
			return 0
		fi
	done
	warn "no memory-backed directory for the gateway's secrets (XDG_RUNTIME_DIR or /dev/shm on tmpfs): passing its token and key by name (-e), so their values are kept in its container's config, readable with '$engine inspect' by whoever may use $engine"
}

# private_dir BASE PREFIX: make BASE/PREFIX.RANDOM (mode 700, this user's; RANDOM 16 hex digits),
# set PRIVATE_DIR to it: the program's (cli-sandbox-ctl private-dir), which the protection's and
# the credentials' directories are made by too (its one user here: gw_secrets_write). A name taken is skipped; five are tried, then the
# run stops, the program having said why. (A dry run makes nothing: its callers show the name as
# BASE/PREFIX.RANDOM.)
private_dir() {
	ctl_find
	PRIVATE_DIR=$("$CTL" private-dir "$1" "$2") || exit
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
	eng_end rm -f "$GW_CT" >/dev/null 2>&1 || true
	eng_end network rm "$GW_NET" >/dev/null 2>&1 || true
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
