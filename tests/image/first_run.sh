#!/bin/sh
# A person's first run (issue 20): the README's quick start typed as a person types it, in
# tmux, on a fresh home, the key exported only in the shell that runs host/cli-sandbox, against
# the mock gateway (tests/gateway/mock_gateway.py, scripted: a typed question gets a shell tool
# call that writes /workspace, then an answer quoting the tool's output). Keys out, the
# default a person gets (docs/broker.md "In a run"): the mock is a container on an --internal
# network of the test's (198.51.100.144/28 under podman, .176/28 under the private dockerd), the
# run's key broker joins it (CLI_SANDBOX_BROKER_UPSTREAM_NETWORK), the sandbox is on the
# broker's own internal network alone (CLI_SANDBOX_BROKER_NETWORK, 198.51.100.16/28 and
# .0/28). Only that test plumbing and the rlimit words go through CLI_SANDBOX_* variables (and
# podman's runtime through CLI_SANDBOX_ENGINE_GLOBAL_ARGS): no key, no user, no mount, no network.
#
# Two halves, each judged by what happened (files written, the gateway's log), never by an
# exit status:
#   podman  rootful, the person is root (the case where the agent's files cannot be the
#           person's: they are uid 1000's, and doctor says so); the engine is found by answer
#           (this machine's docker client has no daemon; a fake docker that fails is put first
#           in PATH too);
#   dockerd a private daemon (tests/dockerd.sh), the person a non-root uid with no passwd
#           entry here or in the image (setpriv; the daemon's socket given to its group), so
#           the agent's files must be that uid's.
# For each: the TUIs of claude, codex and pi (answer on the screen, the tool's file in the
# workspace, the key at the mock only, a run token in the CLI's environment, the key in no
# `ps` line), `-p`/`exec` without `--`,
# --dry-run without the key's value and creating nothing, a pre-existing ~/.codex/auth.json
# keeping owner and mode, `shell -- -c` (firewall, uid, capabilities), doctor --json (an
# unwritable workspace, a missing credential, the engine's choice).
#
# usage: sh tests/image/first_run.sh     (root; images built: localhost/cli-sandbox:latest and
#        the CLIs' own images, or CLI_SANDBOX_TEST_IMAGE=NAME for one all-in-one image)
# environment: SKIP_PODMAN=1 / SKIP_DOCKER=1 leave one half out.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$ROOT/tests/lib/tap.sh"
. "$ROOT/tests/dockerd.sh"
# shellcheck disable=SC2034 # read by tests/lib/tap.sh's ok
T_QUIET=1
IMAGE=${CLI_SANDBOX_TEST_IMAGE:-}
CS=$ROOT/host/cli-sandbox
WORK=$(mktemp -d /tmp/cli-sandbox-first-run.XXXXXX)
chmod 755 "$WORK"
TAG=csfr$$
# The keys: unique values, so that a search for them finds only this test's.
KEY_A=sk-ant-firstrun-$$-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
KEY_O=sk-openai-firstrun-$$-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
REPLY="the first-run gateway answers"
DNET='' PNET='' UPNET='' SBSUBNET=''

note() { sed 's/^/#   /'; }
bail() { echo "Bail out! $*"; exit 1; }
cleanup() {
	for s in $(tmux list-sessions -F '#{session_name}' 2>/dev/null | grep "^$TAG-"); do
		tmux kill-session -t "$s" 2>/dev/null
	done
	if [ -n "$PNET" ]; then
		# a run cut short may leave its broker on the sandbox's network (the private dockerd
		# goes whole, with its networks)
		for c in $(podman ps -aq --filter "network=$TAG-sb" 2>/dev/null); do podman rm -f -t 0 "$c" >/dev/null 2>&1; done
		podman network rm "$TAG-sb" >/dev/null 2>&1
		podman rm -f -t 0 "$TAG-gw" "$TAG-other" >/dev/null 2>&1
		podman network rm "$PNET" >/dev/null 2>&1
	fi
	if [ -n "$DOCKERD_PID" ]; then dockerd_stop; fi
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

[ "$(id -u)" -eq 0 ] || bail "run as root"
for c in tmux podman setpriv timeout python3 git; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing (tests/install-deps.sh)"
done
podman image exists "${IMAGE:-localhost/cli-sandbox:latest}" || bail "no image ${IMAGE:-localhost/cli-sandbox:latest}"
# The key broker's image: run-all's image step builds the CLIs' images, its broker step
# (after this one) the broker's; a fresh machine has none yet, so the default is built here
# (build.sh's cache makes the broker step's build a no-op).
BIMAGE=${CLI_SANDBOX_BROKER_IMAGE:-localhost/cli-sandbox-broker:latest}
if ! podman image exists "$BIMAGE" && [ "$BIMAGE" = localhost/cli-sandbox-broker:latest ]; then
	CLI_SANDBOX_ENGINE=podman sh "$ROOT/image/build.sh" --cli broker localhost/cli-sandbox:latest >"$WORK/broker-build.log" 2>&1 ||
		{ tail -n 5 "$WORK/broker-build.log"; bail "cannot build $BIMAGE"; }
fi
podman image exists "$BIMAGE" || bail "no image $BIMAGE (sh image/build.sh --cli broker)"

# The gateway's tool call: a file in /workspace, and a line the answer quotes.
# shellcheck disable=SC2016 # expanded by the agent's shell
TOOL='echo first-run > /workspace/agent-wrote.txt; echo "FIRSTRUN-WROTE uid=$(id -u)"'

# servers ENGINE NETWORK GW-IP OTHER-IP LOGDIR [RUN-OPTIONS...]: the mock gateway (port 8090,
# its log LOGDIR/gateway.log) and a peer that answers TCP on 8080, as containers of the image
# (it has python3) on NETWORK, unprivileged; waits for the log file.
servers() {
	_e=$1 _n=$2 _gw=$3 _ot=$4 _ld=$5
	shift 5
	"$_e" run -d --name "$TAG-gw" "$@" --network "$_n" --ip "$_gw" --entrypoint python3 \
		-v "$ROOT/tests/gateway:/gw:ro" -v "$_ld:/log" --user 65534:65534 "${IMAGE:-localhost/cli-sandbox:latest}" /gw/mock_gateway.py \
		--listen 0.0.0.0 --port 8090 --reply "$REPLY" --tool-command "$TOOL" --log /log/gateway.log \
		--max-seconds 3000 >/dev/null || bail "the gateway container did not start"
	"$_e" run -d --name "$TAG-other" "$@" --network "$_n" --ip "$_ot" --entrypoint python3 \
		-v "$ROOT/tests/netns:/t:ro" --user 65534:65534 "${IMAGE:-localhost/cli-sandbox:latest}" /t/netservers.py --max-seconds 3000 --tcp 0.0.0.0:8080 \
		>/dev/null || bail "the peer container did not start"
	_i=0
	while [ ! -e "$_ld/gateway.log" ] && [ $_i -lt 100 ]; do sleep 0.2; _i=$((_i + 1)); done
}

# ---------------------------------------------------------------- the person's shell
# person_env HALF: the environment a person's terminal has (and no more), one VAR=VALUE a line.
# PERSON_PREFIX runs it as the person (empty: root).
# Keys out (the default): the test's plumbing names the network the broker's upstream (the
# mock) is on, and the sandbox's network with its subnet; the broker's image is named as the
# run-all step names it (a test image's tag has no broker of its own).
person_env() {
	printf '%s\n' "HOME=$PHOME" "PATH=${PERSON_PATH:-/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin}" \
		"TERM=xterm-256color" "LANG=C.UTF-8" "USER=person" \
		"CLI_SANDBOX_ENGINE_ARGS=$ENGINE_WORDS" "CLI_SANDBOX_ENGINE_GLOBAL_ARGS=$GLOBAL_WORDS" \
		"CLI_SANDBOX_BROKER_IMAGE=$BIMAGE" "CLI_SANDBOX_BROKER_UPSTREAM_NETWORK=$UPNET" \
		"CLI_SANDBOX_BROKER_NETWORK=$TAG-sb" "CLI_SANDBOX_BROKER_SUBNET=$SBSUBNET"
	[ -z "$IMAGE" ] || echo "CLI_SANDBOX_IMAGE=$IMAGE"
	[ -z "${PERSON_DOCKER_HOST:-}" ] || echo "DOCKER_HOST=$PERSON_DOCKER_HOST"
}
# person_script NAME COMMAND: a script that exports the keys (as a person's shell does) and runs
# COMMAND in the workspace; run it with person_run. The keys are in the file (mode 600), never
# in a command line.
person_script() {
	{
		echo "cd '$PWS' || exit 1"
		echo "export ANTHROPIC_API_KEY='$KEY_A' OPENAI_API_KEY='$KEY_O'"
		printf '%s\n' "$2"
	} >"$WORK/$1.sh"
	chmod 600 "$WORK/$1.sh"
	[ -z "$PERSON_UID" ] || chown "$PERSON_UID:$PERSON_GID" "$WORK/$1.sh"
}
# person_run NAME: run $WORK/NAME.sh as the person; output in $WORK/NAME.out, .err.
person_run() {
	# shellcheck disable=SC2046 # one VAR=VALUE a word, no spaces but in the engine words
	(IFS='
'; exec timeout 240 $PERSON_PREFIX env -i $(person_env) sh "$WORK/$1.sh") </dev/null >"$WORK/$1.out" 2>"$WORK/$1.err"
}
# fresh_person: a fresh home and an empty project (a git repository, as projects are).
fresh_person() {
	PHOME=$WORK/$1-home PWS=$WORK/$1-project
	rm -rf "$PHOME" "$PWS"
	mkdir -p "$PHOME" "$PWS"
	git -C "$PWS" init -q
	if [ -n "$PERSON_UID" ]; then
		chown -R "$PERSON_UID:$PERSON_GID" "$PHOME" "$PWS"
	else
		# root with a rootful engine: the sandbox user is uid 1000, which must write here.
		chown -R 1000:1000 "$PWS"
	fi
	chmod 700 "$PHOME"
}

# ---------------------------------------------------------------- the TUI in tmux
screen() { tmux capture-pane -p -J -t "$TAG-$1" 2>/dev/null; }
wait_for() {  # wait_for SESSION SECONDS STRING...: until one is on the screen; prints it
	_s=$1 _deadline=$(($(date +%s) + $2))
	shift 2
	while [ "$(date +%s)" -le "$_deadline" ]; do
		_scr=$(screen "$_s")
		for _w in "$@"; do
			case $_scr in *"$_w"*) printf '%s\n' "$_w"; return 0 ;; esac
		done
		sleep 1
	done
	return 1
}
# type_line SESSION TEXT: the person types TEXT and Enter.
type_line() { tmux send-keys -t "$TAG-$1" -l "$2"; sleep 1; tmux send-keys -t "$TAG-$1" Enter; }
# to_prompt SESSION READY: answer a person's own dialogs until READY shows.
to_prompt() {
	_i=0
	while [ $_i -lt 8 ]; do
		_i=$((_i + 1))
		_seen=$(wait_for "$1" 90 "$2" 'Yes, I trust this folder' 'Bypass Permissions mode' \
			'Do you trust the contents of this directory' 'Trust this folder?' 'Unable to connect to Anthropic services' \
			'Detected a custom API key' 'Sign in with ChatGPT' 'No API key found' '[person: exited]') || return 1
		case $_seen in
		"$2") return 0 ;;
		'Yes, I trust this folder' | 'Do you trust the contents of this directory' | 'Trust this folder?')
			tmux send-keys -t "$TAG-$1" Enter ;;
		'Bypass Permissions mode') tmux send-keys -t "$TAG-$1" 2 ;;
		*) echo "# stopped at: $_seen"; return 1 ;;
		esac
		_j=0
		while [ $_j -lt 10 ] && screen "$1" | grep -qF -- "$_seen"; do sleep 1; _j=$((_j + 1)); done
	done
	return 1
}
# container_of WS: the running container that mounts WS.
container_of() {
	for _c in $($ENGINE ps -q 2>/dev/null); do
		$ENGINE inspect --format '{{range .Mounts}}{{.Source}} {{end}}' "$_c" 2>/dev/null | grep -qF "$1" && { echo "$_c"; return 0; }
	done
	return 1
}
# cli_environ CONTAINER NAME: the environment of the container's command (the init's child).
cli_environ() {
	_pid=$($ENGINE inspect --format '{{.State.Pid}}' "$1" 2>/dev/null)
	for _k in $(ps --ppid "$_pid" -o pid= 2>/dev/null); do
		tr '\0' '\n' <"/proc/$_k/environ" 2>/dev/null
	done
}

# tui_case LABEL CLI READY QUIT-KEYS...: the README's command typed in a person's terminal.
tui_case() {
	_l=$1 _cli=$2 _ready=$3
	shift 3
	fresh_person "$_l"
	: >"$GWLOG"
	_sess=$_l
	# The person's terminal: a login-less bash with only the person's environment.
	{ echo "cd '$PWS' || exit 1"; echo "exec bash --norc --noprofile -i"; } >"$WORK/$_l-term.sh"
	chmod 644 "$WORK/$_l-term.sh"
	# shellcheck disable=SC2046
	(IFS='
'; exec tmux new-session -d -s "$TAG-$_sess" -x 200 -y 50 $PERSON_PREFIX env -i $(person_env) sh "$WORK/$_l-term.sh")
	sleep 1
	type_line "$_sess" "export ANTHROPIC_API_KEY='$KEY_A' OPENAI_API_KEY='$KEY_O'"
	# (the marker printed is not the typed line: echo's two words become one)
	type_line "$_sess" "$CS --managed $URL $_cli; echo '[person:' 'exited]'"
	to_prompt "$_sess" "$_ready"
	_rc=$?
	ok "$_l: the README's command reaches $_cli's prompt on a fresh home" [ $_rc -eq 0 ]
	if [ $_rc -eq 0 ]; then
		type_line "$_sess" "What does the gateway say? Run the check you are told to run."
		# A TUI that took the typing for a paste keeps the text in its editor: Enter again,
		# as a person would.
		_i=0
		while [ $_i -lt 10 ] && ! grep -q '^TOOL_CALL ' "$GWLOG"; do sleep 1; _i=$((_i + 1)); done
		grep -q '^TOOL_CALL ' "$GWLOG" || tmux send-keys -t "$TAG-$_sess" Enter
		# The answer, not the tool's command line (which the TUI shows too).
		wait_for "$_sess" 120 "the tool printed:" >/dev/null && sleep 2
	fi
	tmux capture-pane -p -J -S - -t "$TAG-$_sess" >"$WORK/$_l.screen" 2>/dev/null
	cp "$GWLOG" "$WORK/$_l.gw"
	sed 's/[[:space:]]*$//' "$WORK/$_l.screen" | grep -v '^$' | tail -n 8 | note
	grep -E '^(TOOL_|POST|GET|WS)' "$WORK/$_l.gw" | cut -c1-200 | head -8 | note
	# The answer quotes the tool's output (codex's code mode wraps it in lines of its own).
	ok "$_l: the screen shows the gateway's answer to the typed question" \
		sh -c "grep -qF 'the tool printed:' '$WORK/$_l.screen' && grep -qE '(^|[^(])FIRSTRUN-WROTE uid=$SB_UID' '$WORK/$_l.screen'"
	ok "$_l: the gateway's tool call wrote /workspace, as uid $SB_UID" \
		[ "$(stat -c %u "$PWS/agent-wrote.txt" 2>/dev/null)" = "$SB_UID" ]
	ok "$_l: the tool's output came back to the model (the gateway logged it)" \
		grep -q '^TOOL_RESULT ' "$WORK/$_l.gw"
	_c=$(container_of "$PWS")
	cli_environ "$_c" >"$WORK/$_l.environ"
	case $_cli in codex) _k=$KEY_O _v=OPENAI_API_KEY ;; *) _k=$KEY_A _v=ANTHROPIC_API_KEY ;; esac
	ok "$_l: $_cli's $_v inside is a run token (csbt_...)" grep -qx "$_v=csbt_[0-9a-f]\{64\}" "$WORK/$_l.environ"
	ok "$_l: no key's value in $_cli's environment inside" sh -c "[ -s '$WORK/$_l.environ' ] && ! grep -qF -e '$KEY_A' -e '$KEY_O' '$WORK/$_l.environ'"
	ok "$_l: the key reached the mock (through the broker), and no run token did" \
		sh -c "grep '^HEADERS POST ' '$WORK/$_l.gw' | grep -qF '$_k' && ! grep -q csbt_ '$WORK/$_l.gw'"
	ps -eo args >"$WORK/$_l.ps"
	ok "$_l: the key's value is in no process's command line (ps)" sh -c "! grep -qF -e '$KEY_A' -e '$KEY_O' '$WORK/$_l.ps'"
	# This run's engine: the process whose arguments mount this workspace (other runs on the
	# machine may pass -e NAME of their own).
	grep -F -- "$PWS:/workspace" "$WORK/$_l.ps" >"$WORK/$_l.engine-ps"
	ok "$_l: ps shows this run's engine with the credentials mount and no -e $_v" \
		sh -c "grep -qF '/run/cli-sandbox-credentials/env:ro' '$WORK/$_l.engine-ps' && ! grep -qE -- '-e $_v( |\$)' '$WORK/$_l.engine-ps'"
	$ENGINE inspect "$_c" >"$WORK/$_l.inspect" 2>&1
	ok "$_l: the key's value is not in ${ENGINE##*/} inspect of the running container (Config.Env included)" \
		sh -c "grep -qF '\"Env\"' '$WORK/$_l.inspect' && ! grep -qF -e '$KEY_A' -e '$KEY_O' '$WORK/$_l.inspect'"
	_credsrc=$($ENGINE inspect --format '{{range .Mounts}}{{if eq .Destination "/run/cli-sandbox-credentials/env"}}{{.Source}}{{end}}{{end}}' "$_c" 2>/dev/null)
	echo "# $_l: the credentials file: $_credsrc ($(stat -c '%a %U' "$_credsrc" 2>/dev/null), directory $(stat -c '%a %U' "${_credsrc%/*}" 2>/dev/null), $(stat -f -c %T "$_credsrc" 2>/dev/null))"
	ok "$_l: inspect shows the credentials file mounted read-only, from memory-backed storage" \
		sh -c "[ -n '$_credsrc' ] && [ \"\$(stat -f -c %T '$_credsrc')\" = tmpfs ] && [ \"\$(stat -c %a '${_credsrc%/*}')\" = 700 ]"
	for _key in "$@"; do tmux send-keys -t "$TAG-$_sess" "$_key"; sleep 1; done
	wait_for "$_sess" 20 '[person: exited]' >/dev/null ||
		echo "# $_l: $_cli did not exit on its keys in 20 s: the terminal is closed (SIGHUP) and the container removed"
	# What the runner said at its end (its clean-up's errors, if any), for the check below.
	tmux capture-pane -p -J -S - -t "$TAG-$_sess" 2>/dev/null | sed 's/[[:space:]]*$//' | grep -v '^$' | tail -n 4 >"$WORK/$_l.end"
	tmux kill-session -t "$TAG-$_sess" 2>/dev/null
	# Whichever way the run ended (its keys, or its terminal closed: SIGHUP), the runner
	# removes the sandbox, the key broker and the broker's network: a key holder that outlived
	# its run would be a failure, not a leftover to tidy.
	_i=0
	while [ $_i -lt 30 ] && $ENGINE network inspect "$TAG-sb" >/dev/null 2>&1; do sleep 1; _i=$((_i + 1)); done
	_left=$($ENGINE ps -a --filter "network=$TAG-sb" --format '{{.Names}}' 2>/dev/null | tr '\n' ' ')
	ok "$_l: after the run the runner removed its sandbox, key broker and network (${_left:-none left})" \
		sh -c "! $ENGINE network inspect '$TAG-sb' >/dev/null 2>&1"
	if [ -n "$_left" ]; then note <"$WORK/$_l.end"; ls -d /dev/shm/cli-sandbox-session.* 2>/dev/null | note; fi
	for _b in $($ENGINE ps -aq --filter "network=$TAG-sb" 2>/dev/null); do $ENGINE rm -f "$_b" >/dev/null 2>&1; done
	$ENGINE network rm "$TAG-sb" >/dev/null 2>&1
	_c=$(container_of "$PWS") && $ENGINE rm -f "$_c" >/dev/null 2>&1
	# The script removes the directory once its engine has ended, whichever way it ended.
	_i=0
	while [ $_i -lt 30 ] && [ -n "$_credsrc" ] && [ -e "${_credsrc%/*}" ]; do sleep 1; _i=$((_i + 1)); done
	ok "$_l: after the run the credentials directory is gone" sh -c "[ -n '$_credsrc' ] && [ ! -e '${_credsrc%/*}' ]"
	ok "$_l: ... and no key's value is left in /dev/shm or /run/user" sh -c "! grep -rqsF -e '$KEY_A' -e '$KEY_O' /dev/shm /run/user 2>/dev/null"
}

# ---------------------------------------------------------------- one half
# half LABEL: every check of the issue under the engine set up by the caller
# (ENGINE, URL, OTHER, ENGINE_WORDS, GLOBAL_WORDS, PERSON_PREFIX, PERSON_UID/GID, SB_UID, GWLOG).
half() {
	h=$1
	# The README's quick start, the TUIs.
	tui_case "$h-tui-claude" claude "bypass permissions on" C-c C-c
	tui_case "$h-tui-codex" codex "? for shortcuts" C-c C-c
	tui_case "$h-tui-pi" pi "escape interrupt" C-c C-c C-d

	# -p / exec without --.
	for cli in claude codex pi; do
		fresh_person "$h-print-$cli"
		: >"$GWLOG"
		case $cli in
		codex) words='codex exec "Run the check you are told to run."' ;;
		*) words="$cli -p \"Run the check you are told to run.\"" ;;
		esac
		person_script "$h-print-$cli" "$CS --managed $URL $words"
		person_run "$h-print-$cli"
		cp "$GWLOG" "$WORK/$h-print-$cli.gw"
		tail -n 3 "$WORK/$h-print-$cli.err" | note
		ok "$h: '$words' (no --): the tool call wrote /workspace as uid $SB_UID" \
			[ "$(stat -c %u "$PWS/agent-wrote.txt" 2>/dev/null)" = "$SB_UID" ]
		ok "$h: '$words': the tool's output came back to the model" grep -q "^TOOL_RESULT .*FIRSTRUN-WROTE uid=$SB_UID" "$WORK/$h-print-$cli.gw"
		ok "$h: '$words': the mock got the key, never a run token" \
			sh -c "grep '^HEADERS POST ' '$WORK/$h-print-$cli.gw' | grep -qF -e '$KEY_A' -e '$KEY_O' && ! grep -q csbt_ '$WORK/$h-print-$cli.gw'"
	done

	# --dry-run: no key's value, nothing created; a run: ~/.codex/auth.json keeps owner and mode.
	fresh_person "$h-own"
	mkdir -p "$PHOME/.codex"
	printf '{"auth_mode": "apikey", "OPENAI_API_KEY": "%s"}\n' "$KEY_O" >"$PHOME/.codex/auth.json"
	chmod 600 "$PHOME/.codex/auth.json"
	[ -z "$PERSON_UID" ] || chown -R "$PERSON_UID:$PERSON_GID" "$PHOME/.codex"
	find "$PHOME" "$PWS" -exec stat -c '%n %u:%g %a' {} + | sort >"$WORK/$h-own.before"
	person_script "$h-own-dry" "$CS --dry-run --managed $URL codex exec 'hello'"
	person_run "$h-own-dry"
	find "$PHOME" "$PWS" -exec stat -c '%n %u:%g %a' {} + | sort >"$WORK/$h-own.after-dry"
	ok "$h: --dry-run prints the command" grep -q "'run'" "$WORK/$h-own-dry.out"
	ok "$h: --dry-run shows no key's value" sh -c "! grep -qF -e '$KEY_A' -e '$KEY_O' '$WORK/$h-own-dry.out' '$WORK/$h-own-dry.err'"
	ok "$h: --dry-run creates and changes nothing in the home or the project" cmp -s "$WORK/$h-own.before" "$WORK/$h-own.after-dry"
	person_script "$h-own-run" "$CS --managed $URL codex exec 'Run the check you are told to run.'"
	person_run "$h-own-run"
	ok "$h: a run: ~/.codex/auth.json keeps owner and mode 600" \
		[ "$(stat -c '%u:%g %a' "$PHOME/.codex/auth.json")" = "$(grep "/.codex/auth.json " "$WORK/$h-own.before" | cut -d' ' -f2-)" ]
	find "$PHOME" -exec stat -c '%n %u:%g %a' {} + | sort | grep -v '/.config\(/\| \)' >"$WORK/$h-own.after"
	ok "$h: a run: every file that was in the home keeps owner and mode" \
		sh -c "grep -F '$PHOME' '$WORK/$h-own.before' | while read -r f m; do grep -qxF \"\$f \$m\" '$WORK/$h-own.after' || { echo \"\$f\"; exit 1; }; done"

	# shell -- -c: the same sandbox.
	fresh_person "$h-shell"
	# shellcheck disable=SC2016 # the sandbox's shell expands these
	person_script "$h-shell" "$CS --managed $URL shell -- -c '
		echo uid=\$(id -u)
		grep -E \"^Cap(Prm|Eff|Bnd|Amb)\" /proc/self/status
		s=\$(date +%s%N); timeout 5 bash -c \"echo > /dev/tcp/${OTHER%:*}/${OTHER#*:}\" 2>/dev/null; echo \"other rc=\$? ms=\$(( (\$(date +%s%N) - s) / 1000000 ))\"
		timeout 5 bash -c \"echo > /dev/tcp/$GWADDR/$GWPORT\" 2>/dev/null; echo \"gateway rc=\$?\"
		b=\${ANTHROPIC_BASE_URL:-\${TASK_AGENT_MODEL_BASE_URL:-}}; b=\${b#http://}; b=\${b%%/*}
		timeout 5 bash -c \"echo > /dev/tcp/\${b%:*}/\${b##*:}\" 2>/dev/null; echo \"broker rc=\$?\"
		case \$ANTHROPIC_API_KEY in csbt_*) echo key=token ;; *) echo key=other ;; esac
		command -v claude >/dev/null && echo cli=there'"
	person_run "$h-shell"
	note <"$WORK/$h-shell.out"
	tail -n 3 "$WORK/$h-shell.err" | note
	ok "$h: shell: the uid is the sandbox user's ($SB_UID)" grep -qx "uid=$SB_UID" "$WORK/$h-shell.out"
	ok "$h: shell: no capabilities at all" sh -c "[ \$(grep -c '^Cap[A-Za-z]*:[[:space:]]*0000000000000000\$' '$WORK/$h-shell.out') -eq 4 ]"
	_ms=$(sed -n 's/^other rc=[1-9][0-9]* ms=\([0-9]*\)$/\1/p' "$WORK/$h-shell.out")
	ok "$h: shell: another address is refused at once (${_ms:-no}ms)" [ "${_ms:-9999}" -lt 1000 ]
	ok "$h: shell: the mock is not reachable (only the broker is)" sh -c "grep -q '^gateway rc=[1-9]' '$WORK/$h-shell.out'"
	ok "$h: shell: the broker (ANTHROPIC_BASE_URL) is reachable" grep -qx "broker rc=0" "$WORK/$h-shell.out"
	ok "$h: shell: the credential is a run token, and claude (the default CLI) in PATH" sh -c "grep -qx key=token '$WORK/$h-shell.out' && grep -qx cli=there '$WORK/$h-shell.out'"

	# doctor --json: a workspace the sandbox user cannot write, a missing credential.
	fresh_person "$h-doctor"
	chown "${PERSON_UID:-0}:${PERSON_GID:-0}" "$PWS"
	chmod 555 "$PWS"
	{ echo "cd '$PWS' || exit 1"; echo "$CS doctor --json --managed $URL"; } >"$WORK/$h-doctor.sh"
	chmod 644 "$WORK/$h-doctor.sh"
	person_run "$h-doctor"
	note <"$WORK/$h-doctor.out"
	py() { python3 -c 'import json, sys
j = json.load(open(sys.argv[1])); c = {x["name"]: x for x in j["checks"]}
print(eval(sys.argv[2]))' "$WORK/$h-doctor.out" "$1" 2>/dev/null; }
	ok "$h: doctor --json: the workspace is not writable by the sandbox user, with a fix" \
		[ "$(py '(j["ok"], c["workspace"]["ok"], bool(c["workspace"].get("fix")))')" = "(False, False, True)" ]
	ok "$h: doctor --json: no credential, the variable named in the fix" \
		[ "$(py '(c["credential"]["ok"], "ANTHROPIC_API_KEY" in c["credential"]["fix"])')" = "(False, True)" ]
	ok "$h: doctor --json: the engine is ${ENGINE##*/}, and why" \
		[ "$(py '(c["engine"]["ok"], c["engine"]["detail"].startswith("'"${ENGINE##*/}"' answers ("))')" = "(True, True)" ]
	chmod 755 "$PWS"
}

# ---------------------------------------------------------------- podman, the person root
if [ "${SKIP_PODMAN:-0}" = 1 ]; then
	echo "# SKIP_PODMAN=1: the podman half is left out"
else
	# 198.51.100.144/28: the mock and a peer, on an internal network that only the run's
	# broker joins. The .145 is the bridge in this machine's namespace: nothing is sent there.
	PNET=$TAG-up UPNET=$TAG-up SBSUBNET=198.51.100.16/28
	podman network create --internal --subnet 198.51.100.144/28 "$PNET" >/dev/null || bail "cannot create $PNET"
	mkdir -p "$WORK/plog" && chmod 777 "$WORK/plog"
	GWADDR=198.51.100.146 GWPORT=8090 OTHER=198.51.100.147:8080
	servers podman "$PNET" "$GWADDR" 198.51.100.147 "$WORK/plog" --runtime runc --ulimit nofile=1024:1024 --ulimit nproc=1000:1000
	GWLOG=$WORK/plog/gateway.log
	ENGINE=podman URL=http://$GWADDR:$GWPORT
	ENGINE_WORDS="--ulimit nofile=1024:1024 --ulimit nproc=1000:1000"
	GLOBAL_WORDS="--runtime runc"
	PERSON_PREFIX='' PERSON_UID='' PERSON_GID='' SB_UID=1000
	# A docker client whose daemon does not answer, first in PATH.
	mkdir -p "$WORK/fakebin"
	printf '#!/bin/sh\necho "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?" >&2\nexit 1\n' >"$WORK/fakebin/docker"
	chmod 755 "$WORK/fakebin/docker"
	PERSON_PATH="$WORK/fakebin:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"
	half podman
	# The issue's case: a docker client and a socket, no daemon (a stale socket file): the
	# client is asked, fails, and podman is used.
	python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$WORK/stale.sock"
	PERSON_DOCKER_HOST=unix://$WORK/stale.sock
	fresh_person podman-engine-run
	person_script podman-engine-run "$CS --managed $URL pi -p 'Run the check you are told to run.'"
	person_run podman-engine-run
	ok "podman: a docker whose daemon does not answer first in PATH: the run used podman (the tool wrote as uid 1000)" \
		[ "$(stat -c %u "$PWS/agent-wrote.txt" 2>/dev/null)" = 1000 ]
	fresh_person podman-engine
	{ echo "cd '$PWS' || exit 1"; echo "$CS doctor --json --managed $URL"; } >"$WORK/podman-engine.sh"
	person_run podman-engine
	ok "podman: with a docker that does not answer first in PATH, doctor says podman, and why" \
		grep -qF "podman answers (docker's daemon does not answer (Cannot connect to the Docker daemon" "$WORK/podman-engine.out"
	ok "podman: doctor, run as root: the agent's files belong to uid 1000, and it says so" \
		grep -qF "files the agent writes in the workspace belong to uid 1000" "$WORK/podman-engine.out"
	PERSON_PATH='' PERSON_DOCKER_HOST=''
	podman rm -f -t 0 "$TAG-gw" "$TAG-other" >/dev/null 2>&1
	podman network rm "$PNET" >/dev/null 2>&1
	PNET=''
fi

# ---------------------------------------------------------------- dockerd, the person a non-root uid
if [ "${SKIP_DOCKER:-0}" = 1 ]; then
	echo "# SKIP_DOCKER=1: the dockerd half is left out"
else
	dockerd_start || bail "the test dockerd did not start"
	DIMAGE=${IMAGE:-localhost/cli-sandbox:latest}
	{ dockerd_load "$DIMAGE" && dockerd_load "$BIMAGE"; } || bail "cannot load $DIMAGE and $BIMAGE into dockerd"
	# The person: a uid and gid that no account here has (nor the image).
	PERSON_UID=$(t_free_id 2345) PERSON_GID=$PERSON_UID
	chgrp "$PERSON_GID" "$DOCKERD_DIR/sock" && chmod 660 "$DOCKERD_DIR/sock"
	chmod 755 "$DOCKERD_DIR"
	# One word a line: the person's commands are split on newlines only.
	PERSON_PREFIX="setpriv
--reuid=$PERSON_UID
--regid=$PERSON_GID
--clear-groups
--"
	PERSON_DOCKER_HOST=$DOCKER_HOST
	SB_UID=$PERSON_UID
	chmod 755 "$WORK"
	DNET=$TAG-net
	# 198.51.100.176/28: this test's own part of the container range. The .177 is the bridge in
	# this machine's namespace: nothing is sent there.
	"$DOCKER" network create --internal --subnet 198.51.100.176/28 "$DNET" >/dev/null || bail "cannot create $DNET"
	mkdir -p "$WORK/dlog" && chmod 777 "$WORK/dlog"
	GWADDR=198.51.100.180 GWPORT=8090 OTHER=198.51.100.181:8080
	servers "$DOCKER" "$DNET" "$GWADDR" 198.51.100.181 "$WORK/dlog"
	GWLOG=$WORK/dlog/gateway.log
	UPNET=$DNET SBSUBNET=198.51.100.0/28
	ENGINE=$DOCKER URL=http://$GWADDR:$GWPORT
	ENGINE_WORDS=''
	GLOBAL_WORDS=''
	PERSON_PATH="/usr/bin:/bin:/usr/sbin:/sbin"
	half dockerd
	"$DOCKER" rm -f "$TAG-gw" "$TAG-other" >/dev/null 2>&1
fi

t_done
