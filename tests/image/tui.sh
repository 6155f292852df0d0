#!/bin/sh
# A person at a terminal: each CLI's TUI (claude, codex, pi) started the way the
# README says, `host/cli-sandbox --managed URL CLI`, in tmux (so with -it), with
# a fresh home, the managed profile pointed at the mock gateway.  For each CLI:
#   - the TUI reaches its prompt: no first-run screen that cannot work through
#     the gateway (claude's connectivity check of api.anthropic.com, its "use
#     this API key?" question, codex's "Sign in with ChatGPT");
#   - a question typed at the prompt gets the gateway's answer on the screen,
#     and the gateway logged the CLI's request;
#   - what the CLI keeps lands in the mounted state folder (~/.claude, ~/.codex,
#     ~/.pi), and a second start in the same home goes straight to the prompt.
# Dialogs that are a person's own decision are answered as a person would and
# reported: claude's "trust this folder" (yes), its bypass-permissions warning
# when the managed profile turns autonomy on (accept).
#
# Sourced by tests/image/run.sh (which has the image, the namespaces and ok()),
# or run alone against a built image:
#   CLI_SANDBOX_TEST_IMAGE=localhost/cli-sandbox:test sh tests/image/tui.sh
# Needs tmux.  Every wait is bounded; the containers are named after this shell's
# PID and removed by name; the gateway runs in the test's own namespace on
# 192.0.2.1:8090.
if ! type prun >/dev/null 2>&1; then
	# Alone: the same set-up as run.sh, reduced to what the TUIs need.
	set -u
	HERE=$(cd "$(dirname "$0")" && pwd)
	ROOT=$(cd "$HERE/../.." && pwd)
	. "$ROOT/tests/netns/topology.sh"
	IMAGE=${CLI_SANDBOX_TEST_IMAGE:-localhost/cli-sandbox:test}
	WORK=$(mktemp -d /tmp/cli-sandbox-tui-test.XXXXXX)
	chmod 755 "$WORK"
	# shellcheck disable=SC2034 # read by tests/lib/tap.sh's ok
	T_QUIET=1  # the checked commands' output is silenced, as in run.sh
	note() { sed 's/^/#   /'; }
	tui_standalone=1
	trap 'tui_cleanup; topo_down; rm -rf "$WORK"' EXIT
	trap 'exit 130' INT TERM
	[ "$(id -u)" -eq 0 ] || { echo "Bail out! run as root"; exit 1; }
	podman image exists "$IMAGE" || { echo "Bail out! no image $IMAGE"; exit 1; }
	topo_up || { echo "Bail out! cannot build the test network namespaces"; exit 1; }
else
	tui_standalone=0
fi

TUI_TAG="cst$$-tui"
TUI_URL=http://192.0.2.1:8090
TUI_REPLY="the gateway answers the person at the terminal"
TUI_GWLOG=$WORK/tui-gateway.log
TUI_HOME=$WORK/tui-home
TUI_WS=$WORK/tui-ws
TUI_STATE=$TUI_HOME/.config/cli-sandbox/state  # run as root: the sandbox's own state folders

# The CLIs to drive (each must be in IMAGE): the all-in-one image's three by
# default; CLI_SANDBOX_TEST_CLIS=gemini with the gemini image, and so on.
TUI_CLIS=${CLI_SANDBOX_TEST_CLIS:-claude codex pi}
tui_has() { case " $TUI_CLIS " in *" $1 "*) return 0 ;; esac; return 1; }

tui_cleanup() {
	for c in $TUI_CLIS; do
		tmux kill-session -t "$TUI_TAG-$c" 2>/dev/null
		podman rm -f --time 2 "$TUI_TAG-$c" >/dev/null 2>&1
	done
}

if ! command -v tmux >/dev/null 2>&1; then
	ok "tmux is installed (apt-get install tmux; tests/install-deps.sh does)" false
else
	: >"$TUI_GWLOG"
	topo_spawn "$NS_GW" python3 "$ROOT/tests/gateway/mock_gateway.py" --listen 192.0.2.1 --port 8090 \
		--reply "$TUI_REPLY" --log "$TUI_GWLOG" --max-seconds 900 >"$WORK/tui-gw.out" 2>"$WORK/tui-gw.err"
	topo_wait_tcp "$NS_GW" 192.0.2.1 8090 || ok "the TUI tests' gateway started" false

	# A fresh, empty home: run as root like here, the host script makes the CLI's
	# state folder for the sandbox under CLI_SANDBOX_HOME (state/CLI) and gives it
	# to the container's uid 1000; root's own ~/.claude is never used.
	mkdir -p "$TUI_HOME" "$TUI_WS"
	chown 1000:1000 "$TUI_WS"

	screen() {  # screen CLI: the pane as text, wrapped lines joined
		tmux capture-pane -p -J -t "$TUI_TAG-$1" 2>/dev/null
	}
	history() {  # history CLI: everything the pane showed, scrolled-off lines too
		tmux capture-pane -p -J -S - -t "$TUI_TAG-$1" 2>/dev/null | sed 's/[[:space:]]*$//'
	}
	on_screen() {  # on_screen CLI FIXED-STRING
		screen "$1" | grep -qF -- "$2"
	}
	# wait_for CLI SECONDS FIXED-STRING...: until one of the strings is on the screen;
	# prints the one that appeared.
	wait_for() {
		_c=$1 _deadline=$(($(date +%s) + $2))
		shift 2
		while [ "$(date +%s)" -le "$_deadline" ]; do
			_s=$(screen "$_c")
			for _want in "$@"; do
				case $_s in *"$_want"*) printf '%s\n' "$_want"; return 0 ;; esac
			done
			sleep 1
		done
		return 1
	}
	# tui_start CLI: the README's command for a person, in a new tmux session.
	tui_start() {
		tmux new-session -d -s "$TUI_TAG-$1" -x 200 -y 50 \
			"env HOME='$TUI_HOME' CLI_SANDBOX_HOME='$TUI_HOME/.config/cli-sandbox' \
			CLI_SANDBOX_ENGINE=podman CLI_SANDBOX_IMAGE='$IMAGE' CLI_SANDBOX_ENGINE_GLOBAL_ARGS='--runtime runc' \
			CLI_SANDBOX_KEYS_IN=true CLI_SANDBOX_ENGINE_ARGS='--name $TUI_TAG-$1 --ulimit nofile=1024:1024 --ulimit nproc=1000:1000 --network ns:/run/netns/$NS_SBX' \
			ANTHROPIC_API_KEY=sk-ant-tui-test-not-a-key OPENAI_API_KEY=sk-tui-test-not-a-key GEMINI_API_KEY=gm-tui-test-not-a-key \
			timeout --foreground 300 sh '$ROOT/host/cli-sandbox' --workspace '$TUI_WS' --managed $TUI_URL $1; \
			echo '[tui exited]'; sleep 120"
	}
	# tui_stop CLI KEYS...: quit the TUI with its own keys, then make sure.
	tui_stop() {
		_c=$1
		shift
		for _k in "$@"; do
			tmux send-keys -t "$TUI_TAG-$_c" "$_k" 2>/dev/null
			sleep 1
		done
		wait_for "$_c" 20 '[tui exited]' >/dev/null
		tmux kill-session -t "$TUI_TAG-$_c" 2>/dev/null
		podman rm -f --time 2 "$TUI_TAG-$_c" >/dev/null 2>&1
	}
	# to_prompt CLI READY ALT: answer the dialogs that are a person's decision until
	# READY or ALT shows; fails at a first-run screen that cannot work, or after 90 s.
	# Records what was answered in $WORK/tui-CLI.dialogs.
	to_prompt() {
		_c=$1 _ready=$2 _alt=$3 _i=0
		: >"$WORK/tui-$_c.dialogs"
		while [ $_i -lt 8 ]; do
			_i=$((_i + 1))
			_seen=$(wait_for "$_c" 90 "$_ready" "$_alt" 'Yes, I trust this folder' 'Bypass Permissions mode' \
				'Do you trust the contents of this directory' 'Trust this folder?' \
				'Unable to connect to Anthropic services' 'Detected a custom API key' \
				'Sign in with ChatGPT' '[tui exited]') || return 1
			case $_seen in
			"$_ready" | "$_alt") return 0 ;;
			'Yes, I trust this folder')
				echo "trust dialog (answered: yes, the default)" >>"$WORK/tui-$_c.dialogs"
				tmux send-keys -t "$TUI_TAG-$_c" Enter ;;
			'Do you trust the contents of this directory' | 'Trust this folder?')
				echo "codex trust dialog (answered: yes)" >>"$WORK/tui-$_c.dialogs"
				tmux send-keys -t "$TUI_TAG-$_c" Enter ;;
			'Bypass Permissions mode')
				echo "bypass-permissions warning (answered: 2, Yes, I accept)" >>"$WORK/tui-$_c.dialogs"
				tmux send-keys -t "$TUI_TAG-$_c" 2 ;;
			*)
				echo "stopped at: $_seen" >>"$WORK/tui-$_c.dialogs"
				return 1 ;;
			esac
			# Let the dialog go before looking again.
			_j=0
			while [ $_j -lt 10 ] && on_screen "$_c" "$_seen"; do sleep 1; _j=$((_j + 1)); done
		done
		return 1
	}
	is_ready() { [ -n "$1" ] && { [ "$1" = "$_rdy" ] || [ "$1" = "$_alt_rdy" ]; }; }
	# tui_case CLI READY ALT QUIT-KEYS...: one full first run and a second start;
	# READY or ALT on the screen means the prompt is there.
	tui_case() {
		_cli=$1 _rdy=$2 _alt_rdy=$3
		shift 3
		: >"$TUI_GWLOG"
		tui_start "$_cli"
		to_prompt "$_cli" "$_rdy" "$_alt_rdy"
		_rc=$?
		history "$_cli" >"$WORK/tui-$_cli.first"
		[ -s "$WORK/tui-$_cli.dialogs" ] || echo "no dialog" >"$WORK/tui-$_cli.dialogs"
		note <"$WORK/tui-$_cli.dialogs"
		ok "tui $_cli: a fresh home reaches the prompt ($(tail -n 1 "$WORK/tui-$_cli.dialogs"))" [ $_rc -eq 0 ]
		if [ $_rc -eq 0 ]; then
			tmux send-keys -t "$TUI_TAG-$_cli" -l "What does the gateway say?"
			sleep 1
			tmux send-keys -t "$TUI_TAG-$_cli" Enter
			wait_for "$_cli" 60 "$TUI_REPLY" >/dev/null
		fi
		screen "$_cli" >"$WORK/tui-$_cli.screen"
		cp "$TUI_GWLOG" "$WORK/tui-$_cli.gw"
		echo "# tui $_cli: screen after the question, then the gateway log:"
		sed 's/[[:space:]]*$//' "$WORK/tui-$_cli.screen" | grep -v '^$' | tail -n 12 | note
		note <"$WORK/tui-$_cli.gw"
		ok "tui $_cli: the typed question gets the gateway's answer on the screen" \
			grep -qF "$TUI_REPLY" "$WORK/tui-$_cli.screen"
		tui_stop "$_cli" "$@"
		# Second start in the same home: what the first run kept is found again.
		tui_start "$_cli"
		wait_for "$_cli" 90 "$_rdy" "$_alt_rdy" 'Yes, I trust this folder' 'Detected a custom API key' \
			'Sign in with ChatGPT' 'Unable to connect to Anthropic services' '[tui exited]' >"$WORK/tui-$_cli.second"
		screen "$_cli" >"$WORK/tui-$_cli.second-screen"
		_got=$(cat "$WORK/tui-$_cli.second")
		ok "tui $_cli: a second start in the same home goes straight to the prompt (got: $_got)" \
			is_ready "$_got"
		tui_stop "$_cli" "$@"
	}

	# claude: its first-run onboarding would check api.anthropic.com; the init
	# marks it complete and approves the given key in $CLAUDE_CONFIG_DIR/.claude.json.
	# Its status line says "? for shortcuts", or "bypass permissions on" when the
	# managed profile turns claude's autonomy on.
	if tui_has claude; then
	tui_case claude "? for shortcuts" "bypass permissions on" C-c C-c
	ok "tui claude: the gateway logged POST /v1/messages" grep -q '^POST /v1/messages' "$WORK/tui-claude.gw"
	ok "tui claude: the init said what it wrote for the first run" \
		grep -q "first run through the gateway: marked claude's onboarding complete and approved the given ANTHROPIC_API_KEY" "$WORK/tui-claude.first"
	ok "tui claude: its state is in the mounted ~/.claude (state/claude: .claude.json, onboarding complete)" \
		grep -q '"hasCompletedOnboarding": *true' "$TUI_STATE/claude/.claude.json"
	ok "tui claude: the trust answer persisted there too" \
		grep -q '"hasTrustDialogAccepted": *true' "$TUI_STATE/claude/.claude.json"
	ok "tui claude: nothing written beside the folder (no ~/.claude.json, no ~/.claude)" \
		sh -c "[ ! -e '$TUI_HOME/.claude.json' ] && [ ! -e '$TUI_HOME/.claude' ]"

	fi

	if tui_has codex; then
	# codex: its TUI ignores OPENAI_API_KEY until an API-key login exists; the init
	# writes the one codex's own API-key login writes, $CODEX_HOME/auth.json.
	tui_case codex "? for shortcuts" "? for shortcuts" C-c C-c
	ok "tui codex: the gateway logged the Responses API (/responses)" grep -q ' /responses' "$WORK/tui-codex.gw"
	ok "tui codex: the API-key login is in the mounted state/codex/auth.json (mode 600)" sh -c "
		grep -q '\"auth_mode\": *\"apikey\"' '$TUI_STATE/codex/auth.json' &&
		[ \"\$(stat -c %a '$TUI_STATE/codex/auth.json')\" = 600 ]"

	fi

	if tui_has pi; then
	tui_case pi "escape interrupt" "escape interrupt" C-c C-c C-d
	ok "tui pi: the gateway logged POST /v1/messages" grep -q '^POST /v1/messages' "$WORK/tui-pi.gw"
	ok "tui pi: its sessions are in the mounted state/pi/agent" \
		sh -c "find '$TUI_STATE/pi/agent/sessions' -name '*.jsonl' | grep -q ."
	fi

	# gemini: the image's system defaults select the API-key login (no auth
	# dialog), and the managed profile trusts the workspace (no trust dialog).
	if tui_has gemini; then
	tui_case gemini "Type your message" "Type your message" C-c C-c
	ok "tui gemini: the gateway logged Gemini's generateContent" grep -q 'GenerateContent' "$WORK/tui-gemini.gw"
	ok "tui gemini: its state is in the mounted state/gemini (~/.gemini)" sh -c "ls -A '$TUI_STATE/gemini' | grep -q ."
	fi

	if tui_has opencode; then
	tui_case opencode "Ask anything" "ctrl+p commands" C-c C-c
	ok "tui opencode: the gateway logged POST /v1/messages" grep -q '^POST /v1/messages' "$WORK/tui-opencode.gw"
	ok "tui opencode: its data is in the mounted state/opencode (~/.local/share/opencode)" \
		sh -c "ls -A '$TUI_STATE/opencode' | grep -q ."
	fi
	tui_cleanup
fi

if [ "$tui_standalone" = 1 ]; then
	t_done
fi
