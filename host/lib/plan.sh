# shellcheck shell=sh
# host/lib/plan.sh: the run's path as cli-sandbox-ctl resolves it (docs/hostctl.md, "plan").
# Sourced by host/cli-sandbox. The program decides; this file only reads its KEY=VALUE lines,
# with a while-read loop and a case that stops at a key it does not know: nothing is
# evaluated, nothing sourced.

# plan_load ARG...: run 'cli-sandbox-ctl plan --runner ARG...' (with --keys-in when asked)
# and set from its lines
#   ROUTE      direct | broker | translator
#   PLAN       direct (the CLI's own API, through the broker or not) | gateway (the
#              translator) | legacy (a URL taken as is: no type recorded, or --managed URL)
#   CLI_API    what the CLI speaks: anthropic | responses | chat | gemini
#   UP_API     what the translator asks upstream: chat | anthropic
#   CLI_URL    the URL the CLI is given on its own path (the broker's upstream)
#   EP_URL EP_URLQ EP_TYPE EP_MODEL EP_KEYENV EP_SPEAKS   the endpoint's record
#   KB_KEYVAR KB_FORM KB_API   the person's variable with the key, the form and API the
#              broker sends it in; KB_MODE (direct | translate), KB_MODELS
#   TOKEN_KIND broker | key | placeholder | none; PLACEHOLDER_KEY; KB_TOKVARS (the CLI's
#              variables for the token, blank-separated), CRED_VAR (the first)
#   PLAN_ENV   NAME=VALUE lines for the sandbox; PLAN_ARGS words after the CLI's name, a line each
# A refusal dies with the program's reason and fix, before anything starts.
plan_load() {
	ctl_find
	[ "$keys_in" = false ] || set -- "$@" --keys-in
	_out=$("$CTL" plan --runner --cli "$cli" "$@")
	_rc=$?
	ROUTE='' PLAN=legacy CLI_API='' UP_API='' CLI_URL='' EP_URL='' EP_TYPE='' EP_MODEL='' EP_KEYENV='' EP_SPEAKS=''
	KB_KEYVAR='' KB_FORM='' KB_API='' TOKEN_KIND=key PLACEHOLDER_KEY='' KB_TOKVARS='' PLAN_ENV='' PLAN_ARGS=''
	_reason='' _fix=''
	while IFS= read -r _l; do
		_v=${_l#*=}
		case ${_l%%=*} in
		route) ROUTE=$_v ;;
		type) EP_TYPE=$_v ;;
		url) EP_URL=$_v ;;
		speaks) EP_SPEAKS=$_v ;;
		api) CLI_API=$_v ;;
		upstream_api) UP_API=$_v ;;
		cli_url) CLI_URL=$_v ;;
		model) EP_MODEL=$_v ;;
		key_env) EP_KEYENV=$_v ;;
		key_var) KB_KEYVAR=$_v ;;
		key_form) KB_FORM=$_v ;;
		broker_api) KB_API=$_v ;;
		token) TOKEN_KIND=$_v ;;
		placeholder) PLACEHOLDER_KEY=$_v ;;
		token_var) KB_TOKVARS=${KB_TOKVARS:+$KB_TOKVARS }$_v ;;
		env) PLAN_ENV=$PLAN_ENV$_v$NL ;;
		cli_arg) PLAN_ARGS=$PLAN_ARGS$_v$NL ;;
		reason) _reason=$_v ;;
		fix) _fix=$_v ;;
		cli | endpoint | upstream | key_in_sandbox) ;;
		'') [ -z "$_l" ] || die "the plan of cli-sandbox-ctl has a line without a key: reinstall cli-sandbox and its program together" ;;
		*) die "the plan of cli-sandbox-ctl has an unknown key '${_l%%=*}': reinstall cli-sandbox and its program together" ;;
		esac
	done <<EOF
$_out
EOF
	if [ "$_rc" != 0 ]; then
		[ "$ROUTE" = refused ] || exit "$_rc"  # the program said why, on stderr
		die "$_reason${_fix:+; try: $_fix}"
	fi
	case $ROUTE in direct | broker | translator) ;; *) die "cli-sandbox-ctl gave no route: reinstall cli-sandbox and its program together" ;; esac
	for _v in $KB_TOKVARS; do check_var_name "$_v"; done
	[ -z "$KB_KEYVAR" ] || check_var_name "$KB_KEYVAR"
	[ -z "$EP_KEYENV" ] || check_var_name "$EP_KEYENV"
	CRED_VAR=${KB_TOKVARS%% *} KB_MODE=direct KB_MODELS=''
	shq "$EP_URL"; EP_URLQ=$Q  # for the fixes printed
	[ -n "$EP_TYPE" ] || return 0
	PLAN=direct KB_MODELS=$EP_MODEL
	[ "$ROUTE" != translator ] || PLAN=gateway KB_MODE=translate
}

# plan_backend CLI NAME KEEP_OUT: the plan of CLI against endpoint NAME (KEEP_OUT true: through
# the translator, ping's and up's --keep-keys-out), for doctor, ping and up.
plan_backend() {
	_pc=$cli cli=$1
	if [ "$3" = true ]; then plan_load --endpoint "$2" --translator; else plan_load --endpoint "$2"; fi
	cli=$_pc
}
