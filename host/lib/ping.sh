# shellcheck shell=sh
# host/lib/ping.sh: 'ping' (does the model answer, and with a structured tool call, on the
# exact path the CLI will use, a run's: through the key broker when a key of the person's is on
# it, the router behind it when translating; 'status' and doctor's checks are cli-sandbox-ctl's).
# Sourced by host/cli-sandbox; docs/gateway.md. The checks themselves run in host/lib/ping.mjs, inside
# the sandbox image behind its managed firewall (and inside the gateway's container for the
# upstream), never from this host.

# ping_sandbox API CHECK TOOLS: run ping.mjs in the sandbox image, managed firewall, on the
# CLI's path; prints its JSON lines.
ping_sandbox() {
	_check=$2 CMD=
	add run --rm -i
	# The run's limits (pids, memory, CPUs, open files, /tmp), as a run of the CLI gets them.
	add_limits
	for _a in ${CLI_SANDBOX_ENGINE_ARGS:-}; do add "$_a"; done
	# through the key broker: a name the session's guardian removes, and the broker's network alone
	[ "$KB" != true ] || add --name "$RUN_CT" --network "$KB_NET"
	add --cap-drop=ALL --cap-add=NET_ADMIN --cap-add=SETUID --cap-add=SETGID --cap-add=SETPCAP
	add --security-opt=no-new-privileges
	add -v "$libdir/ping.mjs:/opt/cli-sandbox/ping.mjs:ro"
	# CLI_SANDBOX_PING_TARGET: ask another URL from inside, through the same firewall (a
	# diagnostic: would the CLI reach it?); the firewall stays the CLI's.
	add -e CLI_SANDBOX_EGRESS_PROFILE=managed -e "TASK_AGENT_MODEL_BASE_URL=$PING_URL" -e "PING_URL=${CLI_SANDBOX_PING_TARGET:-$PING_URL}"
	add -e "PING_API=$1" -e "PING_CHECK=$2" -e "PING_TOOLS=$3" -e "PING_MODEL=${EP_MODEL:-default}" -e "PING_KEY_VAR=$CRED_VAR"
	# The token or key as a run's: in the credentials file (ping_creds), never -e.
	CMD="$CMD $PING_CREDS"
	run_image
	add "$IMG" -- node /opt/cli-sandbox/ping.mjs
	eval "set -- $GLOBAL_Q $CMD"
	# Its JSON lines, and the init's block-log lines (what the firewall refused) as checks, read
	# by the host program (cli-sandbox-ctl ping-report, docs/hostctl.md); a failed CHECK when none.
	"$engine" "$@" 2>&1 </dev/null | ctl_exec ping-report --lines "$_check"
}

# ping_upstream: the translator's upstream, checked from the router's container (up's, or this
# ping's session's: KB_ROUTER), where the key is. The key is in the router's environment only (its
# secrets file is gone once it answers), not in the container's: a shell in it copies the
# variable from the router's (PID 1, the same uid) into the check's, so that no value is in an
# argument here or there.
ping_upstream() {
	_api=$UP_API
	[ "$EP_TYPE" != ollama ] || _api=ollama
	eng exec -i -e "PING_URL=$HOST_URL" -e "PING_API=$_api" -e PING_CHECK=direct -e PING_TOOLS=0 \
		-e "PING_MODEL=$EP_MODEL" -e PING_KEY_VAR=CLI_SANDBOX_UPSTREAM_KEY "$KB_ROUTER" \
		sh -c 'CLI_SANDBOX_UPSTREAM_KEY=$(tr "\0" "\n" </proc/1/environ | sed -n "s/^CLI_SANDBOX_UPSTREAM_KEY=//p")
			export CLI_SANDBOX_UPSTREAM_KEY; exec node --input-type=module -' <"$libdir/ping.mjs" 2>&1 | grep '^{' ||
		echo '{"check":"direct","ok":false,"error":"the gateway container did not run the check"}'
}

# ping_report JSON-LINES JSON: print the results (text, or one object when JSON is true) and the
# verdict, READY or NOT OK; fail when NOT OK (cli-sandbox-ctl ping-report, docs/hostctl.md).
ping_report() {
	_lines=$1 _j=$2
	set -- ping-report --cli "$cli" --endpoint "$endpoint" --path "$ROUTE"
	[ "$_j" = false ] || set -- "$@" --json
	printf '%s\n' "$_lines" | ctl_exec "$@"
}

# ping_creds VALUE: the CLI's credential (the run's token, or the endpoint's key on a direct
# path) reaches ping's sandbox the way it reaches a run's: in the credentials file on memory
# (credentials and add_credentials; removed by on_exit), whose mount words go in PING_CREDS.
# The value is exported, as a run's is (var_set; cli-sandbox-ctl credentials reads it by name
# from its environment), and no engine argument carries it.
ping_creds() {
	PING_CREDS=''
	[ -n "$1" ] || return 0
	var_set "$CRED_VAR" "$1"  # SB_UID SB_GID: runner --argv's identity
	CRED_ARGS="--var $CRED_VAR"
	[ "$KB" != true ] || CRED_ARGS="$CRED_ARGS --broker"
	_m=--write
	[ "$dry_run" = false ] || _m=--dry-run
	credentials "$_m"
	_saved=$CMD CMD=
	add_credentials
	PING_CREDS=$CMD CMD=$_saved
}

# (Its results are _pong, a name no helper it calls uses: cli-sandbox-ctl's readers, ctl_read and
# cred_read, fill _out.)
ping_main() {
	_json=false _tools=1
	while [ $# -gt 0 ]; do
		case $1 in
		--json) _json=true ;;
		--no-tools) _tools=0 ;;
		# Any CLI of the table: plan_backend below refuses one that no path serves (gemini
		# against a typed endpoint), with its reason.
		--cli) need "$@"; is_cli "$2" || die "unknown CLI '$2': use --cli with one of $(cli_names)"; cli=$2; shift ;;
		--cli=*) set -- --cli "${1#--cli=}" "$@"; continue ;;
		*) die "usage: cli-sandbox [--endpoint NAME] ping [--cli CLI] [--json] [--no-tools]" ;;
		esac
		shift
	done
	[ -n "$engine" ] || die "neither docker nor podman is installed: install one of them"
	# The run's own plan: keys out through the key broker unless --keys-in (--keep-keys-out,
	# the default, changes nothing here either).
	plan_backend "$cli" "$endpoint"
	[ "$PLAN" != legacy ] || die "endpoint '$endpoint' has no type: re-add it with 'cli-sandbox endpoints add $endpoint $EP_URLQ' (it is probed) to ping it"
	models_check_installed
	_pong='' KB=false
	case $ROUTE in broker | translator) KB=true; kb_own_network_refused ;; esac
	if [ "$KB" = true ]; then
		# A run's sidecars (host/lib/keys.sh): the broker, up's or this ping's own, and behind
		# it, translating, the router. The sandbox gets a token of this ping's, never the key.
		RUN_CT=cli-sandbox-run-$$
		keys_session
		if [ "$PLAN" = gateway ]; then
			gw_host_url "$EP_URL" || die "$ERR"
			_pong=$(ping_upstream)
		fi
		PING_URL=$KB_URL
		ping_creds "$KB_TOKEN"
		_pong="$_pong
$(ping_sandbox "$CLI_API" broker "$_tools")"
	else
		# No key of the person's on the path (a keyless Ollama), or --keys-in: the endpoint itself.
		host_url "$CLI_URL" || die "$ERR"
		PING_URL=$HOST_URL
		VAL=''
		[ -z "$EP_KEYENV" ] || var_get "$EP_KEYENV"
		ping_creds "$VAL"
		if [ "$EP_TYPE" = ollama ]; then
			ep_base "$HOST_URL" ollama; PING_URL=$BASE
			_pong=$(ping_sandbox ollama direct 0)
			host_url "$CLI_URL"; PING_URL=$HOST_URL
			_pong="$_pong
$(ping_sandbox "$CLI_API" path "$_tools")"
		else
			_pong=$(ping_sandbox "$CLI_API" direct "$_tools")
		fi
	fi
	ping_report "$_pong" "$_json"
}
