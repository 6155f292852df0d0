# shellcheck shell=sh
# host/lib/plan.sh: what cli-sandbox-ctl decides for a run, its path ("plan") and the rest the
# runner needs ("runner", one call for all: docs/hostctl.md). Sourced by host/cli-sandbox.
# The program decides; this file only reads its KEY=VALUE lines, a line a word and a case
# that stops at a key it does not know: nothing is evaluated, nothing sourced.

# ctl_read ARG...: run 'cli-sandbox-ctl ARG...' and set from its lines (_rc: its status;
# _reason, _fix: a refused plan's). The plan's ('plan --runner', and 'runner --plan'):
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
# and the rest of 'runner' (docs/hostctl.md, "runner"):
#   cmd cli cli_named profile image url endpoint allow, ARGS_USED (how many of the
#              person's words were the script's), host_network pinning allow_userns socket
#              allow_host_writes dry_run json keep_keys_out keys_in (true | false): the person's
#              words as 'runner --argv' read them (arg_* lines)
#   CTL_CLIS   the program's CLIs (CLI_NAMES must be the same)
#   CLI_DIR CLI_VAR CLI_SUB CLI_KEYS   the CLI's row (base/cli_names.c)
#   INV_UID   the invoking user; CAP_SYS_RES yes | no (CAP_SYS_RESOURCE may be held)
#   SEL_NAME EPX_URL EPX_KEYENV   the endpoint named or selected, and (when it is there) its
#              URL and key-env
#   LIM_PIDS LIM_MEM LIM_CPUS LIM_NOFILE LIM_TMP (MiB) LIM_TEXT (doctor's line)   the limits
#   WS_WRITABLE yes | no, WS_HOW   may the sandbox user write the workspace, and how that was told
#   WS_PATH WS_ERR   the workspace's canonical path, or the refusal of it
#   GIT_NAME GIT_EMAIL   git's user for the sandbox's commits (run and shell)
#   engine ENGINE_WHY | ENGINE_ERR   the engine chosen and why, or the line naming both engines
#   SB_UID SB_GID STATE_HOST STATE_FOR_SB OWN_NOTE   who the sandbox user is (docs/host-script.md,
#              "Who owns what"); ID_ARGS its engine words, a line each
#   SOCK SOCK_GID | SOCK_ERR   the engine's API socket (--docker-socket) and its group, or why
#              there is none
# A line without a key or with an unknown one stops the runner: nothing is evaluated. The
# program's failure, a refused plan's aside, ends the runner with its status (it said why).
ctl_read() {
	ctl_find
	_out=$("$CTL" "$@")
	_rc=$?
	ROUTE='' PLAN=legacy CLI_API='' UP_API='' CLI_URL='' EP_URL='' EP_TYPE='' EP_MODEL='' EP_KEYENV='' EP_SPEAKS=''
	KB_KEYVAR='' KB_FORM='' KB_API='' TOKEN_KIND=key PLACEHOLDER_KEY='' KB_TOKVARS='' PLAN_ENV='' PLAN_ARGS=''
	_reason='' _fix='' SEL_NAME='' EPX_URL='' EPX_KEYENV='' CLI_PROTECT='' GIT_NAME='' GIT_EMAIL=''
	# One line a word (IFS a newline; the runner runs with set -f): the shell's read would take
	# the lines a byte at a time, a system call each. Empty lines drop out.
	_ifs=$IFS IFS=$NL
	for _l in $_out; do
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
		cli | endpoint | upstream | key_in_sandbox | cli_logins | gid | home_path) ;;  # (cli_logins: credentials' own)
		clis) CTL_CLIS=$_v ;;
		cli_dir) CLI_DIR=$_v ;;
		cli_var) CLI_VAR=$_v ;;
		cli_sub) CLI_SUB=$_v ;;
		cli_keys) CLI_KEYS=$_v ;;
		cli_protect) CLI_PROTECT=$CLI_PROTECT$_v$NL ;;
		uid) INV_UID=$_v ;;
		cap_sys_resource) CAP_SYS_RES=$_v ;;
		ep_name) SEL_NAME=$_v ;;
		ep_url) EPX_URL=$_v ;;
		ep_key_env) EPX_KEYENV=$_v ;;
		lim_pids) LIM_PIDS=$_v ;;
		lim_mem) LIM_MEM=$_v ;;
		lim_cpus) LIM_CPUS=$_v ;;
		lim_nofile) LIM_NOFILE=$_v ;;
		lim_tmp) LIM_TMP=$_v ;;
		lim_text) LIM_TEXT=$_v ;;
		ws_writable) WS_WRITABLE=$_v ;;
		ws_how) WS_HOW=$_v ;;
		ws_path) WS_PATH=$_v ;;
		ws_error) WS_ERR=$_v ;;
		git_name) GIT_NAME=$_v ;;
		git_email) GIT_EMAIL=$_v ;;
		engine) engine=$_v ;;
		engine_why) ENGINE_WHY=$_v ;;
		engine_error) ENGINE_ERR=$_v ;;
		sb_uid) SB_UID=$_v ;;
		sb_gid) SB_GID=$_v ;;
		state_host) STATE_HOST=$_v ;;
		state_for_sb) STATE_FOR_SB=$_v ;;
		own_note) OWN_NOTE=$_v ;;
		id_arg) ID_ARGS=$ID_ARGS$_v$NL ;;
		sock) SOCK=$_v ;;
		sock_gid) SOCK_GID=$_v ;;
		sock_error) SOCK_ERR=$_v ;;
		arg_cmd) cmd=$_v ;;
		arg_used) ARGS_USED=$_v ;;
		arg_cli) cli=$_v ;;
		arg_cli_named) cli_named=$_v ;;
		arg_profile) profile=$_v ;;
		arg_image) image=$_v ;;
		arg_url) url=$_v ;;
		arg_endpoint) endpoint=$_v ;;
		arg_allow) allow=$_v ;;
		arg_host_network) host_network=$_v ;;
		arg_pinning) pinning=$_v ;;
		arg_allow_userns) allow_userns=$_v ;;
		arg_socket) socket=$_v ;;
		arg_allow_host_writes) allow_host_writes=$_v ;;
		arg_dry_run) dry_run=$_v ;;
		arg_json) json=$_v ;;
		arg_keep_keys_out) ;;  # (the default: it changes nothing)
		arg_keys_in) keys_in=$_v ;;
		'') [ -z "$_l" ] || die "cli-sandbox-ctl gave a line without a key: reinstall cli-sandbox and its program together" ;;
		*) die "cli-sandbox-ctl gave an unknown key '${_l%%=*}': reinstall cli-sandbox and its program together" ;;
		esac
	done
	IFS=$_ifs
	[ "$_rc" = 0 ] || [ "$ROUTE" = refused ] || exit "$_rc"
}

# cred_read ARG...: 'cli-sandbox-ctl credentials ARG...' (docs/hostctl.md, "credentials"), which
# decides the sandbox's credentials and, with --write, writes the credentials file from its own
# environment (no value is ever an argument or a line), and set from its lines: CRED_ERR (no
# credential at all), CRED_VARS, CRED_LOGIN, CRED_BYNAME (-e NAME), CRED_WARN, CRED_FILE (to
# mount) and CRED_DIR (made: the run's end removes it). A by-name variable whose value is
# another's is exported here (copy=TO FROM): the engine reads -e NAME from its environment.
cred_read() {
	ctl_find
	_out=$("$CTL" credentials "$@") || exit $?
	CRED_ERR='' CRED_VARS='' CRED_LOGIN='' CRED_BYNAME='' CRED_WARN='' CRED_FILE='' _die=''
	_ifs=$IFS IFS=$NL
	for _l in $_out; do
		_v=${_l#*=}
		case ${_l%%=*} in
		cred_error) CRED_ERR=$_v ;;
		cred_vars) CRED_VARS=$_v ;;
		cred_login) CRED_LOGIN=$_v ;;
		by_name) CRED_BYNAME="$CRED_BYNAME $_v" ;;
		copy) var_get "${_v#* }"; var_set "${_v%% *}" "$VAL" ;;
		warn) CRED_WARN=$_v ;;
		file) CRED_FILE=$_v ;;
		cred_dir) CRED_DIR=$_v ;;
		die) _die=$_v ;;
		*) die "cli-sandbox-ctl gave an unknown key '${_l%%=*}': reinstall cli-sandbox and its program together" ;;
		esac
	done
	IFS=$_ifs
	if [ -n "$CRED_DIR" ]; then
		# Removed on every way out; a signal before the engine starts ends the script (exit
		# runs the EXIT trap; the shell would not run it when killed by the signal itself).
		trap on_exit EXIT
		trap 'exit 129' HUP
		trap 'exit 130' INT
		trap 'exit 143' TERM
	fi
	[ -z "$_die" ] || die "$_die"
}

# plan_check: a plan read by ctl_read: a refusal dies with the program's reason and fix, before
# anything starts; else the variables it names are checked and the rest set.
plan_check() {
	[ "$_rc" = 0 ] || die "$_reason${_fix:+; try: $_fix}"
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

# plan_load ARG...: the plan of $cli, 'cli-sandbox-ctl plan --runner ARG...' (with --keys-in
# when asked), read and checked.
plan_load() {
	[ "$keys_in" = false ] || set -- "$@" --keys-in
	ctl_read plan --runner --cli "$cli" "$@"
	plan_check
}

# plan_backend CLI NAME: the plan of CLI against endpoint NAME, as a run of it would have it,
# for ping and up.
plan_backend() {
	_pc=$cli cli=$1
	plan_load --endpoint "$2"
	cli=$_pc
}
