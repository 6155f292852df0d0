# shellcheck shell=sh
# host/lib/keys.sh: keys out by default (issue 32, items 4 and 5; docs/broker.md, "In a run").
# Sourced by host/cli-sandbox after host/lib/gateway.sh; the broker's directory, key, tokens,
# start and wait are cli-sandbox-ctl broker's (docs/broker.md). It reads the
# plan (ROUTE, KB_API, KB_FORM, KB_KEYVAR, KB_TOKVARS, KB_MODELS, CLI_URL: host/lib/plan.sh,
# which reads cli-sandbox-ctl plan's lines) and the runner's helpers (add, eng, var_get, warn, die, memory_dir, private_dir, host_url, print_cmd).
#
# A run whose path carries a key of the person's goes through the key broker: the broker's
# container beside the sandbox holds the key (a file on memory, mounted read-only), the sandbox
# gets a fresh token of this run in the variable(s) its CLI reads, and the sandbox's only
# egress is the broker's address and port on an internal network of this run. The token is
# revoked, the broker and the network removed when the run ends (the EXIT trap: on_exit).
# Where the endpoint lacks the CLI's API (PLAN=gateway), the router sits behind the broker, on
# a second internal network the sandbox is not on: sandbox -> broker -> router -> upstream.
# --keys-in alone puts the key into the sandbox (today's direct path), with a warning.

KB_PORT=8080
KB=false KB_MODE='' KB_KEYVAR='' KB_API='' KB_FORM='' KB_TOKVARS='' KB_MODELS=''
KB_CT='' KB_NET='' KB_DIR='' KB_PRIV='' KB_IP='' KB_TOKEN='' KB_MADE=false kb_image=${CLI_SANDBOX_BROKER_IMAGE:-}

# kb_image_name: the broker's image next to $image: REPOSITORY-broker:TAG (what image/build.sh
# --cli broker IMAGE builds), REPOSITORY-broker:latest for a CLI's own image (REPOSITORY:claude:
# one broker serves every CLI), unless CLI_SANDBOX_BROKER_IMAGE names it.
kb_image_name() {
	[ -z "$kb_image" ] || return 0
	case ${image##*/} in
	*:*) if is_cli "${image##*:}"; then kb_image=${image%:*}-broker:latest; else kb_image=${image%:*}-broker:${image##*:}; fi ;;
	*) kb_image=$image-broker:latest ;;
	esac
}

# keys_out_checks: before a run through the broker (the plan's route broker or translator).
keys_out_checks() {
	kb_own_network_refused
	# The broker's internal network is the sandbox's only one (as the gateway's was): the
	# interactive profile's other names are out of reach there. Said, not hidden.
	[ "$profile" != interactive ] || warn "the key broker keeps the key out, and its internal network is the sandbox's only one: the interactive profile's other names (GitHub, the CLI's own hosts) are out of reach in this run; --keys-in reaches them with the key inside"
}

# kb_own_network_refused: CLI_SANDBOX_ENGINE_ARGS that place the sandbox on a network of their
# own (--network, --net) leave no room for the broker's internal network, the sandbox's only
# egress: refused, with the fix, rather than the key slipping in unasked.
kb_own_network_refused() {
	for _w in ${CLI_SANDBOX_ENGINE_ARGS:-}; do
		case $_w in
		--network | --network=* | --net | --net=*)
			die "CLI_SANDBOX_ENGINE_ARGS places the sandbox on a network of its own ($_w), where the key broker cannot stand beside it: drop that word, or take the key into the sandbox with --keys-in (CLI_SANDBOX_KEYS_IN=true)" ;;
		esac
	done
}

# keys_warn: --keys-in's one warning line, said once the run is about to start (after any
# refusal), and only when a key of the person's goes in (the plan's key_var).
keys_warn() {
	[ "$keys_in" = true ] && [ "$ROUTE" = direct ] && [ -n "$KB_KEYVAR" ] || return 0
	var_get "$KB_KEYVAR"
	[ -z "$VAL" ] || warn "--keys-in: the key in \$$KB_KEYVAR enters the sandbox, where the agent can read it and send it wherever the firewall lets it (without --keys-in the key broker keeps it out)"
	VAL=''
}

# kb_split URL: set KB_UP (URL without a trailing /v1: the broker's upstream, its path the
# prefix) and KB_SUFFIX (/v1 or empty: what the sandbox's URL keeps after the broker's address).
kb_split() {
	KB_UP=${1%/} KB_SUFFIX=''
	case $KB_UP in */v1) KB_UP=${KB_UP%/v1} KB_SUFFIX=/v1 ;; esac
}

# kb_names: the broker's container and the sandbox's network for this run.
kb_names() {
	KB_CT=cli-sandbox-broker-run-$$
	KB_NET=${CLI_SANDBOX_BROKER_NETWORK:-$KB_CT}
}

# kb_cmd_net: the engine command that makes the sandbox's network: internal, no route out.
kb_cmd_net() {
	CMD=
	add network create --internal
	[ -z "${CLI_SANDBOX_BROKER_SUBNET:-}" ] || add --subnet "$CLI_SANDBOX_BROKER_SUBNET"
	add "$KB_NET"
}

# kb_run_words UPSTREAM-NETWORK: set KB_WORDS to the words the broker's run gets after its
# confinement (cli-sandbox-ctl broker start: read-only root, no capability, no_new_privs, uid
# 1002, 64 MiB, 64 PIDs): CLI_SANDBOX_ENGINE_ARGS (the runner's own rules: podman's runtime and
# rlimits), then the network that reaches its upstream (the router's internal network when
# translating; else CLI_SANDBOX_BROKER_UPSTREAM_NETWORK, else
# CLI_SANDBOX_GATEWAY_UPSTREAM_NETWORK, else the engine's default). No secret in them.
kb_run_words() {
	KB_WORDS=${CLI_SANDBOX_ENGINE_ARGS:-}
	[ -z "$1" ] || KB_WORDS="$KB_WORDS --network $1"
}

# kb_upnet: set KB_UPNET, the network the broker's upstream is on.
kb_upnet() {
	if [ "$KB_MODE" = translate ]; then KB_UPNET=$GW_NET
	else KB_UPNET=${CLI_SANDBOX_BROKER_UPSTREAM_NETWORK:-${CLI_SANDBOX_GATEWAY_UPSTREAM_NETWORK:-}}
	fi
}

# kb_upstream: set KB_UP and KB_SUFFIX for the plan (the router when translating). The URL the
# CLI would be given on a direct path, with an address on this host rewritten as for the
# sandbox (host_url).
kb_upstream() {
	if [ "$KB_MODE" = translate ]; then
		KB_UP=http://${GW_IP:-<gateway-ip>}:$GW_PORT KB_SUFFIX=''
		return 0
	fi
	_u=$CLI_URL
	HOST_NET=${CLI_SANDBOX_BROKER_UPSTREAM_NETWORK:-${CLI_SANDBOX_GATEWAY_UPSTREAM_NETWORK:-}}
	host_url "$_u" || die "$ERR"
	HOST_NET=''
	kb_split "$HOST_URL"
}

# keys_dry_run: what a dry run prints before the sandbox's command (no key, no token).
keys_dry_run() {
	_saved=$CMD
	kb_image_name; kb_names; kb_upnet; kb_upstream; ctl_find
	echo "# the key broker beside the sandbox (docs/broker.md); the sandbox reaches only it, on $KB_NET:"
	echo "# DIR (a private directory on memory) gets broker.conf: $KB_API API, upstream $KB_UP, models ${KB_MODELS:-any}, model policy rewrite, key form $KB_FORM"
	if [ -n "$KB_KEYVAR" ]; then
		echo "# DIR/key gets the value of \$$KB_KEYVAR (never printed); DIR/tokens a fresh token of this run"
	else
		echo "# DIR/key gets the router's token (never printed); DIR/tokens a fresh token of this run"
	fi
	kb_cmd_net; eval "set -- $GLOBAL_Q $CMD"; print_cmd "$engine" "$@"
	kb_run_words "$KB_UPNET"
	# shellcheck disable=SC2086 # words, split as the runner splits CLI_SANDBOX_ENGINE_ARGS
	"$CTL" broker start --dry-run "$engine" "$KB_CT" "$kb_image" DIR $KB_WORDS || exit
	CMD=; add network connect "$KB_NET" "$KB_CT"; eval "set -- $GLOBAL_Q $CMD"; print_cmd "$engine" "$@"
	echo "# then the sandbox, on $KB_NET, its $KB_TOKVARS = RUN-TOKEN (the run's token, in the credentials file; revoked at the end)"
	KB_IP='<broker-ip>'
	CMD=$_saved
}

# keys_start: make the broker's directory (key, config, token), its network and container;
# wait until it listens. Sets KB_IP and KB_TOKEN; the EXIT trap (on_exit -> keys_cleanup)
# removes all of it on every way out.
keys_start() {
	_saved=$CMD
	kb_image_name; kb_names; kb_upnet; kb_upstream; ctl_find
	eng image inspect "$kb_image" >/dev/null 2>&1 || die "the key broker's image $kb_image is not present in $engine: build it with 'sh image/build.sh --cli broker' (or set CLI_SANDBOX_BROKER_IMAGE; --keys-in puts the key in the sandbox instead)"
	! eng inspect "$KB_CT" >/dev/null 2>&1 || die "a container named $KB_CT already exists: remove it with '$engine rm -f $KB_CT'"
	trap on_exit EXIT
	trap 'exit 129' HUP
	trap 'exit 130' INT
	trap 'exit 143' TERM
	KB_MADE=true
	# A private directory (0700, a random name) on memory holds the broker's: nobody else on
	# this host can enter it, the broker reads it through its mount.
	_base=''
	for _b in "${XDG_RUNTIME_DIR:-}" /dev/shm; do
		case $_b in *:*) continue ;; esac
		memory_dir "$_b" && _base=$_b && break
	done
	[ -n "$_base" ] || die "no memory-backed directory for the key broker (XDG_RUNTIME_DIR or /dev/shm on tmpfs): mount one, or pass --keys-in to put the key in the sandbox"
	private_dir "$_base" cli-sandbox-broker-run
	KB_PRIV=$PRIVATE_DIR
	KB_DIR=$(CLI_SANDBOX_BROKER_RUNDIR=$KB_PRIV "$CTL" broker dir) || die "cannot make the broker's directory in $KB_PRIV"
	"$CTL" broker config "$KB_DIR" "$KB_API" "$KB_UP" "$KB_MODELS" rewrite "$KB_FORM" || die "cannot configure the key broker (above)"
	if [ -n "$KB_KEYVAR" ]; then var_get "$KB_KEYVAR"; else VAL=$TOKEN; fi
	case $VAL in *"$NL"*) die "the key in \$$KB_KEYVAR has a line break: set the variable to the key alone" ;; esac
	# printf is a builtin: the key reaches no command line.
	printf '%s' "$VAL" | "$CTL" broker key "$KB_DIR" || die "cannot write the key for the broker in $KB_DIR"
	VAL=''
	KB_TOKEN=$("$CTL" broker token-add "$KB_DIR") || die "cannot add the run's token in $KB_DIR"
	kb_cmd_net; eval "set -- $CMD"
	_err=$(eng "$@" 2>&1 >/dev/null) || die "cannot create the broker's network $KB_NET: $(printf '%s\n' "$_err" | tail -n 1); remove a leftover with '$engine network rm $KB_NET' or choose another CLI_SANDBOX_BROKER_SUBNET"
	kb_run_words "$KB_UPNET"
	# shellcheck disable=SC2086 # words, split as the runner splits CLI_SANDBOX_ENGINE_ARGS
	"$CTL" broker start "$engine" "$KB_CT" "$kb_image" "$KB_DIR" $KB_WORDS || die "the key broker did not start (above): check '$engine images $kb_image'"
	_err=$(eng network connect "$KB_NET" "$KB_CT" 2>&1) || die "cannot attach the key broker to $KB_NET: $(printf '%s\n' "$_err" | tail -n 1)"
	"$CTL" broker wait "$engine" "$KB_CT" 2>/dev/null || die "the key broker did not listen within 10 seconds ($(eng logs "$KB_CT" 2>&1 | tail -n 1)): check the image with 'sh image/build.sh --cli broker'"
	KB_IP=$(eng inspect -f "{{(index .NetworkSettings.Networks \"$KB_NET\").IPAddress}}" "$KB_CT" 2>/dev/null) || KB_IP=
	case $KB_IP in *.*.*.*) ;; *) die "cannot learn the key broker's address on $KB_NET" ;; esac
	for _v in $KB_TOKVARS; do export "$_v=$KB_TOKEN"; done
	CMD=$_saved
}

# keys_sandbox_url: set url to the broker's address for the sandbox (its only egress).
keys_sandbox_url() {
	url=http://$KB_IP:$KB_PORT$KB_SUFFIX
}

# keys_cleanup: revoke the token, remove the broker, its network and its directory (whatever
# of them exists). Called by on_exit.
keys_cleanup() {
	[ "$KB_MADE" = true ] || return 0
	KB_MADE=false
	[ -z "$KB_TOKEN" ] || [ -z "$KB_DIR" ] || printf '%s\n' "$KB_TOKEN" | "$CTL" broker token-revoke "$KB_DIR" 2>/dev/null
	eng rm -f "$KB_CT" >/dev/null 2>&1 || true
	eng network rm "$KB_NET" >/dev/null 2>&1 || true
	[ -z "$KB_PRIV" ] || rm -rf -- "$KB_PRIV"
}
