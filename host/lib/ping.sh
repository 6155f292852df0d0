# host/lib/ping.sh: 'ping' (does the model answer, and with a structured tool call, on the
# shellcheck shell=sh
# exact path the CLI will use) and doctor's backend checks ('status' is cli-sandbox-ctl's).
# Sourced by host/cli-sandbox; docs/gateway.md. The checks themselves run in host/lib/ping.mjs, inside
# the sandbox image behind its managed firewall (and inside the gateway's container for the
# upstream), never from this host.

# ping_sandbox API CHECK TOOLS: run ping.mjs in the sandbox image, managed firewall, on the
# CLI's path; prints its JSON lines.
ping_sandbox() {
	CMD=
	add run --rm -i
	# The run's limits (pids, memory, CPUs, open files, /tmp), as a run of the CLI gets them.
	add_limits
	for _a in ${CLI_SANDBOX_ENGINE_ARGS:-}; do add "$_a"; done
	[ "$PLAN" != gateway ] || add --network "$GW_NET"
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
	# Its JSON lines, and the init's block-log lines (what the firewall refused) as checks.
	_res=$("$engine" "$@" 2>&1 </dev/null | awk '
		/^\{/ { print; next }
		/^cli-sandbox-init: blocked: / { l = $0; sub(/^cli-sandbox-init: blocked: /, "", l); gsub(/["\\]/, "", l)
		         printf "{\"check\":\"firewall\",\"ok\":false,\"error\":\"the firewall refused %s\"}\n", l }')
	[ -n "$_res" ] || _res=$(printf '{"check":"%s","ok":false,"error":"the sandbox did not run the check (see cli-sandbox doctor)"}' "$2")
	printf '%s\n' "$_res"
}

# ping_upstream: the direct check from the gateway's container (where the key is).
# The key is in the router's environment only (its secrets file is gone once it answers), not
# in the container's: a shell in it copies the variable from the router's (PID 1, the same
# uid) into the check's, so that no value is in an argument here or there.
ping_upstream() {
	_api=$UP_API
	[ "$EP_TYPE" != ollama ] || _api=ollama
	eng exec -i -e "PING_URL=$HOST_URL" -e "PING_API=$_api" -e PING_CHECK=direct -e PING_TOOLS=0 \
		-e "PING_MODEL=$EP_MODEL" -e PING_KEY_VAR=CLI_SANDBOX_UPSTREAM_KEY "$GW_CT" \
		sh -c 'CLI_SANDBOX_UPSTREAM_KEY=$(tr "\0" "\n" </proc/1/environ | sed -n "s/^CLI_SANDBOX_UPSTREAM_KEY=//p")
			export CLI_SANDBOX_UPSTREAM_KEY; exec node --input-type=module -' <"$libdir/ping.mjs" 2>&1 | grep '^{' ||
		echo '{"check":"direct","ok":false,"error":"the gateway container did not run the check"}'
}

# ping_report JSON-LINES: print the results (text or --json) and the verdict; fail when NOT OK.
ping_report() {
	printf '%s\n' "$1" | awk -v json="$2" -v cli="$cli" -v ep="$endpoint" -v plan="$PLAN" '
		function f(k,   m) { if (match($0, "\"" k "\":(\"([^\"\\\\]|\\\\.)*\"|[^,}]*)")) { m = substr($0, RSTART + length(k) + 3, RLENGTH - length(k) - 3); gsub(/^"|"$/, "", m); return m } return "" }
		/^\{/ { n++; line[n] = $0; if (f("ok") != "true") bad = 1 }
		END {
			if (n == 0) bad = 1
			if (json == "true") {
				printf "{\"cli\":\"%s\",\"endpoint\":\"%s\",\"path\":\"%s\",\"ready\":%s,\"checks\":[", cli, ep, plan, bad ? "false" : "true"
				for (i = 1; i <= n; i++) printf "%s%s", (i > 1 ? "," : ""), line[i]
				print "]}"
			} else {
				for (i = 1; i <= n; i++) {
					$0 = line[i]
					extra = ""
					if (f("load_ms") != "") extra = sprintf(", load %s ms, %s", f("load_ms"), f("cold") == "true" ? "cold (was not loaded)" : f("cold") == "false" ? "loaded" : "load state unknown")
					if (f("ok") == "true") printf "ok      %-8s %5s ms  %s%s\n", f("check"), f("ms"), f("tool") != "" ? "tool call " f("tool") : "reply: " f("reply"), extra
					else printf "NOT OK  %-8s %s%s\n", f("check"), f("error"), f("hint") != "" ? "\n        hint: " f("hint") : ""
					if (f("load_ms") + 0 > 2000) printf "        hint: loading dominates; keep the model loaded with OLLAMA_KEEP_ALIVE (e.g. 30m) on the Ollama host\n"
				}
				print (bad ? "NOT OK" : "READY") " (" cli " via " plan " to " ep ")"
			}
			exit bad
		}'
}

# ping_creds VALUE: the CLI's credential (the run's token, or the endpoint's key on a direct
# path) reaches ping's sandbox the way it reaches a run's: in the credentials file on memory
# (add_credentials; removed by on_exit), whose mount words go in PING_CREDS. The value is
# exported, as a run's is (var_set; add_credentials reads it by name), and no engine argument
# carries it.
ping_creds() {
	PING_CREDS=''
	[ -n "$1" ] || return 0
	var_set "$CRED_VAR" "$1"
	plan_identity
	CRED_VARS=$CRED_VAR
	_saved=$CMD CMD=
	add_credentials
	PING_CREDS=$CMD CMD=$_saved
}

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
	plan_backend "$cli" "$endpoint" "$keep_keys_out"
	[ "$PLAN" != legacy ] || die "endpoint '$endpoint' has no type: re-add it with 'cli-sandbox endpoints add $endpoint $EP_URLQ' (it is probed) to ping it"
	models_check_installed
	_out=''
	if [ "$PLAN" = gateway ]; then
		gw_host_url "$EP_URL" || die "$ERR"
		if ! gw_state "$endpoint"; then
			gw_names "ping-$$"
			gw_run=true
			trap on_exit EXIT
			trap 'exit 130' INT
			trap 'exit 143' TERM
			gw_start "$HOST_URL"
		fi
		_out=$(ping_upstream)
		PING_URL=http://$GW_IP:$GW_PORT
		ping_creds "$TOKEN"
		_out="$_out
$(ping_sandbox "$CLI_API" gateway "$_tools")"
	else
		host_url "$CLI_URL" || die "$ERR"
		PING_URL=$HOST_URL
		VAL=''
		[ -z "$EP_KEYENV" ] || var_get "$EP_KEYENV"
		ping_creds "$VAL"
		if [ "$EP_TYPE" = ollama ]; then
			ep_base "$HOST_URL" ollama; PING_URL=$BASE
			_out=$(ping_sandbox ollama direct 0)
			host_url "$CLI_URL"; PING_URL=$HOST_URL
			_out="$_out
$(ping_sandbox "$CLI_API" path "$_tools")"
		else
			_out=$(ping_sandbox "$CLI_API" direct "$_tools")
		fi
	fi
	ping_report "$_out" "$_json"
}

# ---------------------------------------------------------------- doctor's backend checks
# doctor_image CHECK IMAGE WHAT FIX: doctor's line CHECK on whether the engine has IMAGE (WHAT
# names it in the failure, FIX is the build command), one check for every image a path needs.
doctor_image() {
	if [ "$_engine_ok" != true ]; then
		check "$1" false "cannot check $2: the engine does not answer" "fix the engine first"
	elif eng image inspect "$2" >/dev/null 2>&1; then
		check "$1" true "$2 is present"
	else
		check "$1" false "$3 $2 is not present in $engine" "$4"
	fi
}

# doctor_broker_image: the key broker's image, which a run on this path needs (host/lib/keys.sh).
doctor_broker_image() {
	kb_image_name
	doctor_image broker-image "$kb_image" "the key broker's image" \
		"build it: sh image/build.sh --cli broker (or set CLI_SANDBOX_BROKER_IMAGE; --keys-in puts the key in the sandbox instead)"
}

# doctor_backend: for an endpoint with a type (the one a run would use), doctor's lines about
# its path: the plan for the CLI (direct, gateway, or refused and why), and on the gateway's
# path its image and an 'up' gateway's state (running, or a stale record); for Ollama, the
# model installed when this host reaches it. Reads only: a stale record is reported, not
# removed. Sets DOC_PLAN (legacy, direct, gateway or refused) for the credential check.
doctor_backend() {
	DOC_PLAN=legacy
	[ -n "$endpoint" ] && [ "$url" = "$(endpoint_url "$endpoint")" ] || return 0
	[ -n "$(ep_get "$endpoint" type)" ] || return 0
	if ! _why=$( (plan_backend "$cli" "$endpoint" "$keep_keys_out") 2>&1 >/dev/null); then
		DOC_PLAN=refused
		check path false "$cli against endpoint '$endpoint' is refused before start: ${_why#"$prog: "}" \
			"do what the reason names (another CLI, another endpoint, or the variable exported); docs/gateway.md has the table of each CLI and endpoint type"
		return 0
	fi
	plan_backend "$cli" "$endpoint" "$keep_keys_out"
	DOC_PLAN=$PLAN
	_what="endpoint '$endpoint' ($EP_TYPE, speaks ${EP_SPEAKS:-unknown}${EP_MODEL:+, model $EP_MODEL})"
	if [ "$PLAN" = direct ] && { [ -z "$EP_KEYENV" ] || [ "$keys_in" = true ]; }; then
		check path true "$cli goes direct to $_what$([ -z "$EP_KEYENV" ] || echo ", the key from \$$EP_KEYENV in the sandbox (--keys-in)")"
	elif [ "$PLAN" = direct ]; then
		check path true "$cli goes to $_what through the key broker: the sandbox gets a run's token, the broker alone holds \$$EP_KEYENV"
		doctor_broker_image
	else
		check path true "$cli goes through the gateway to $_what (Anthropic Messages in, $UP_API out), behind the key broker: the sandbox gets a run's token$([ -z "$EP_KEYENV" ] || echo ", the gateway alone holds \$$EP_KEYENV")"
		gw_image_name
		doctor_image gateway-image "$gw_image" "the gateway's image" \
			"build it: sh image/build.sh --cli gateway (or set CLI_SANDBOX_GATEWAY_IMAGE)"
		_f=$conf/gateway/$endpoint
		if [ ! -f "$_f" ]; then
			check gateway true "not up: each run starts one for itself and stops it after (a long-lived one: cli-sandbox --endpoint $endpoint up)"
		else
			_ct=$(sed -n 's/^container=//p' "$_f") _ip=$(sed -n 's/^ip=//p' "$_f")
			if [ "$_engine_ok" = true ] && [ "$(eng inspect -f '{{.State.Running}}' "$_ct" 2>/dev/null)" = true ]; then
				check gateway true "up: $_ct at $_ip:$GW_PORT, which runs use"
			else
				check gateway false "stale record $_f: its container $_ct is not running" \
					"cli-sandbox --endpoint $endpoint down (then up again for a long-lived gateway)"
			fi
		fi
	fi
	[ "$PLAN" = direct ] || doctor_broker_image
	[ "$EP_TYPE" = ollama ] && [ -n "$EP_MODEL" ] || return 0
	ep_base "$EP_URL" ollama; OB=$BASE
	if ! command -v curl >/dev/null 2>&1; then
		check model true "$EP_MODEL not checked: no curl on this host"
	elif ! curl -sf -o /dev/null --noproxy '*' --connect-timeout 3 --max-time 10 "$OB/api/tags" 2>/dev/null; then
		check model true "$EP_MODEL not checked: Ollama at $OB does not answer from this host (cli-sandbox ping checks it from the gateway)"
	elif (ollama_has "$EP_MODEL") 2>/dev/null; then
		check model true "$EP_MODEL is installed on '$endpoint'"
	else
		shq "$EP_MODEL"
		check model false "$EP_MODEL is not installed on '$endpoint'" \
			"cli-sandbox --endpoint $endpoint models pull $Q (or choose another: models use M)"
	fi
}
