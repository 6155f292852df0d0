# shellcheck shell=sh
# host/lib/keys.sh: keys out by default (issue 32, items 4 and 5; docs/broker.md, "In a run").
# Sourced by host/cli-sandbox after host/lib/gateway.sh. The sidecars themselves (the broker's
# directory, key, token, networks and containers, the router behind it, their end) are
# cli-sandbox-ctl session's (docs/broker.md); this file passes it the plan (host/lib/plan.sh:
# KB_API, KB_FORM, KB_KEYVAR, KB_TOKVARS, KB_MODELS, KB_MODE, CLI_URL, EP_*) and the key.
#
# A run whose path carries a key of the person's goes through the key broker: the broker's
# container beside the sandbox holds the key (a file on memory, mounted read-only), the sandbox
# gets a fresh token of this run in the variable(s) its CLI reads, and the sandbox's only
# egress is the broker's address and port on an internal network of this run. The token is
# revoked, the broker and the network removed when the run ends (the EXIT trap: on_exit).
# Where the endpoint lacks the CLI's API (PLAN=gateway), the router sits behind the broker, on
# a second internal network the sandbox is not on: sandbox -> broker -> router -> upstream.
# --keys-in alone puts the key into the sandbox (today's direct path), with a warning.

KB=false KB_ROUTER='' KB_MODE='' KB_KEYVAR='' KB_API='' KB_FORM='' KB_TOKVARS='' KB_MODELS=''
KB_CT='' KB_NET='' KB_SESSION='' KB_URL='' KB_TOKEN='' KB_MADE=false kb_image=${CLI_SANDBOX_BROKER_IMAGE:-}

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

# kb_names: the broker's container and the sandbox's network for this run (as session start
# names them; the pinning resolver joins that network).
kb_names() {
	KB_CT=cli-sandbox-broker-run-$$
	KB_NET=${CLI_SANDBOX_BROKER_NETWORK:-$KB_CT}
}

# kb_start ARG...: cli-sandbox-ctl session start ARG... for the plan (docs/broker.md, "In a
# run"): the broker, and when the plan translates the router behind it. The key goes on its
# stdin from printf, a builtin: it reaches no command line. A dry run prints the commands; else
# kb_read reads its lines.
kb_start() {
	kb_image_name; ctl_find
	set -- session start --engine "$engine" --broker-image "$kb_image" --api "$KB_API" \
		--models "$KB_MODELS" --key-form "$KB_FORM" "$@"
	VAL=''
	if [ "$KB_MODE" = translate ]; then
		gw_image_name
		gw_host_url "$EP_URL" || die "$ERR"
		set -- "$@" --translate --gateway-image "$gw_image" --gateway-upstream "$HOST_URL" --upstream-api "$UP_API" --model "$EP_MODEL"
		# (the value only for a real run: a dry run reads no key)
		[ -z "$EP_KEYENV" ] || { set -- "$@" --key-var "$EP_KEYENV"; [ "$dry_run" = true ] || var_get "$EP_KEYENV"; }
	else
		# The URL the CLI would be given on a direct path, an address on this host rewritten as
		# for the sandbox (host_url), on the network the broker reaches its upstream on.
		HOST_NET=${CLI_SANDBOX_BROKER_UPSTREAM_NETWORK:-${CLI_SANDBOX_GATEWAY_UPSTREAM_NETWORK:-}}
		host_url "$CLI_URL" || die "$ERR"
		HOST_NET=''
		set -- "$@" --upstream "$HOST_URL" --key-var "$KB_KEYVAR"
		[ "$dry_run" = true ] || var_get "$KB_KEYVAR"
	fi
	if [ "$dry_run" = true ]; then
		VAL=''
		"$CTL" "$@" --dry-run </dev/null || exit
		KB_URL=http://'<broker-ip>':8080
		case $KB_MODE:${HOST_URL%/} in direct:*/v1) KB_URL=$KB_URL/v1 ;; esac
		return 0
	fi
	_out=$(printf '%s' "$VAL" | "$CTL" "$@")
	_rc=$? VAL=''
	kb_read
}

# kb_read: read session start's or join's lines in _out (as the plan's are read: a case per
# key, no eval); exit with its status when it failed (it said why, and removed what it made).
kb_read() {
	KB_SESSION='' KB_URL='' KB_TOKEN='' KB_ROUTER=''
	while IFS= read -r _l; do
		_v=${_l#*=}
		case ${_l%%=*} in
		session) KB_SESSION=$_v ;;
		router) KB_ROUTER=$_v ;;
		network) KB_NET=$_v ;;
		url) KB_URL=$_v ;;
		token) KB_TOKEN=$_v ;;
		'') ;;
		*) die "cli-sandbox-ctl session gave an unknown key '${_l%%=*}': reinstall cli-sandbox and its program together" ;;
		esac
	done <<EOF
$_out
EOF
	[ "$_rc" = 0 ] || exit "$_rc"
	[ -n "$KB_SESSION" ] && [ -n "$KB_URL" ] || die "cli-sandbox-ctl session gave no session: reinstall cli-sandbox and its program together"
}

# keys_session: the run's sidecars: a token of its own on the broker 'up' keeps for this
# endpoint when one runs with this plan's API, key form, path and models (session join; exit 3:
# none fits), else a broker of its own (kb_start). The sandbox's and the pinning resolver's
# containers (--first) are named so that the guardian session start (or join) leaves removes
# them first if this script is killed (SIGKILL: no trap runs).
keys_session() {
	kb_names; ctl_find
	set -- --id "$$" --first "cli-sandbox-run-$$" --first "cli-sandbox-dns-$$"
	if [ "$dry_run" = false ]; then
		trap on_exit EXIT
		trap 'exit 129' HUP
		trap 'exit 130' INT
		trap 'exit 143' TERM
	fi
	_rc=3 _dry=''
	[ "$dry_run" = false ] || _dry=--dry-run
	if [ -n "$endpoint" ]; then
		_out=$("$CTL" session join --record "$conf/broker/$endpoint" --api "$KB_API" --key-form "$KB_FORM" \
			--mode "$KB_MODE" --models "$KB_MODELS" ${_dry:+"$_dry"} "$@")
		_rc=$?
	fi
	# (join's answer kept apart: kb_start's helpers set _rc, host_url's through gw_host_url)
	_joined=yes
	[ "$_rc" != 3 ] || _joined=no
	if [ "$_joined" = no ]; then kb_start "$@"; else kb_read; fi
	if [ "$dry_run" = true ]; then
		[ "$_joined" = no ] || echo "# the key broker 'up' keeps for '$endpoint', on $KB_NET: a token of this run's is added to it (never printed)"
		echo "# then the sandbox, on $KB_NET, its $KB_TOKVARS = RUN-TOKEN (the run's token, in the credentials file; revoked at the end)"
		return 0
	fi
	KB_MADE=true
	[ -n "$KB_TOKEN" ] || die "cli-sandbox-ctl session gave no token: reinstall cli-sandbox and its program together"
	for _v in $KB_TOKVARS; do export "$_v=$KB_TOKEN"; done
}

# keys_up NAME: 'up' keeps, for endpoint NAME and claude's plan, the key broker and, when the
# plan translates, the router behind it: one session (session start --keep; issue 32, item 3).
# The broker holds the key (or the router's token); it has no token until a run adds its own
# (session join), which the run's end revokes. Its record, $conf/broker/NAME, names its session
# (no key, no token). A path with no key of the person's and no translation needs nothing kept.
keys_up() {
	plan_backend claude "$1"
	case $ROUTE in broker | translator) ;; *) echo "nothing to keep up for '$1': claude reaches it directly, with no key of yours on the path"; return 0 ;; esac
	models_check_installed
	kb_names; ctl_find
	if "$CTL" session join --record "$conf/broker/$1" --dry-run --api "$KB_API" --key-form "$KB_FORM" --mode "$KB_MODE" --models "$KB_MODELS" >/dev/null; then
		echo "the key broker for '$1' is already running (cli-sandbox-broker-$1)"
		return 0
	fi
	"$CTL" session down --record "$conf/broker/$1"  # a stale one
	# A signal waits for session start, which then removes what it had made (it has no guardian).
	trap 'exit 129' HUP
	trap 'exit 130' INT
	trap 'exit 143' TERM
	kb_start --keep "$1" --record "$conf/broker/$1"
	echo "the key broker for '$1' is up at $KB_URL (cli-sandbox-broker-$1, network $KB_NET)${KB_ROUTER:+, the translator $KB_ROUTER behind it}; each run gets a token of its own; stop it with 'cli-sandbox down'"
}

# keys_down NAME: end what 'up' keeps for NAME (the broker, the router, their networks and
# directories).
keys_down() {
	ctl_find
	"$CTL" session down --record "$conf/broker/$1"
	case $? in
	0) echo "the key broker for '$1' is stopped, and the translator behind it if any" ;;
	3) echo "nothing was up for '$1'" ;;
	esac
	return 0
}

# keys_sandbox_url: set url to the broker's address for the sandbox (its only egress).
keys_sandbox_url() {
	url=$KB_URL
}

# keys_cleanup: the session's end (called by on_exit, after the sandbox's own container): the
# token revoked, the broker, the router, their networks and directories removed. A guardian
# that session start left does the same if this script is killed before it can.
keys_cleanup() {
	[ "$KB_MADE" = true ] || return 0
	KB_MADE=false
	"$CTL" session end "$KB_SESSION" || true
}
