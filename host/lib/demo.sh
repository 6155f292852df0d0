# host/lib/demo.sh: `cli-sandbox demo`: watch the sandbox do its job with no model server and
# shellcheck shell=sh
# no key of your own. Sourced by host/cli-sandbox; docs/host-script.md, "See it work".
#
# A scripted model (host/lib/demo-model.mjs, node, in a container of the sandbox's own image,
# as an unprivileged user, on an internal network with no route out) asks the agent for tool
# calls; the real CLI runs against it through this very script, as a person's run does
# (endpoint, the key broker, firewall, identity, limits), in a temporary
# workspace and home. Then each step is judged by what the model received and by the files,
# never by the CLI's exit status.

DEMO_PORT=8080
DEMO_MODEL_MOUNT=/opt/cli-sandbox/demo-model.mjs

demo_usage() {
	cat <<'EOF'
Usage: cli-sandbox [--engine docker|podman] [--image NAME] demo [CLI] [--keep] [--json]

Runs CLI (claude, pi or opencode; default claude) in the sandbox against a scripted model of
this project, on an internal network, and shows what became of each thing the model asks
for: a file written in the workspace, two connections out (refused), the environment (no
key), the identity (no capabilities). Exit 0 when every step holds, 1 naming the steps that
do not, 2 when the demo cannot start. Nothing is left behind but, with --keep, the
temporary folder it names.

  --keep     keep the temporary folder (workspace, the CLI's output, the model's log)
  --json     print one JSON object instead of the text
Environment: CLI_SANDBOX_DEMO_SUBNET (the model's internal network, default
198.51.100.0/28), CLI_SANDBOX_DEMO_SANDBOX_SUBNET (the sandbox's, default 198.51.100.16/28),
CLI_SANDBOX_DEMO_TIMEOUT (seconds for the CLI's run, default 180).
EOF
}

# demo_addr SUBNET N: set ADDR to SUBNET's N-th host address (first_host is the 1st).
demo_addr() {
	first_host "$1" || die "bad subnet '$1': use A.B.C.D/N with N between 1 and 30, e.g. 198.51.100.0/28"
	ADDR=${FIRST%.*}.$((${FIRST##*.} + $2 - 1))
}

# demo_step NAME OK DETAIL: record one step's verdict (text line or JSON member).
DEMO_FAILED='' DEMO_JSON=''
demo_step() {
	[ "$2" = true ] || DEMO_FAILED="${DEMO_FAILED:+$DEMO_FAILED, }$1"
	DEMO_JSON="${DEMO_JSON:+$DEMO_JSON,}{\"name\":$(json_str "$1"),\"ok\":$2,\"detail\":$(json_str "$3")}"
	[ "$demo_json" = false ] || return 0
	if [ "$2" = true ]; then printf 'ok   %-10s %s\n' "$1" "$3"; else printf 'FAIL %-10s %s\n' "$1" "$3"; fi
}

# demo_result STEP: print the text of the tool result the model received for STEP.
demo_result() {
	sed -n "s/^result $1 | //p" "$DEMO_DIR/model.log"
}

# demo_say TEXT: a progress line on stderr (not with --json).
demo_say() { [ "$demo_json" = true ] || printf '%s\n' "$*" >&2; }

# demo_remove: remove what the demo made (containers, networks, and the folder unless kept).
# shellcheck disable=SC2317 # called by the trap
demo_remove() {
	[ -n "${DEMO_NAME:-}" ] || return 0
	[ -z "${DEMO_WATCHDOG:-}" ] || kill "$DEMO_WATCHDOG" 2>/dev/null
	demo_remove_runs
	eng rm -f "$DEMO_NAME-model" >/dev/null 2>&1
	eng network rm "$DEMO_NAME" >/dev/null 2>&1
	if [ "$demo_keep" = false ] && [ -n "${DEMO_DIR:-}" ]; then
		rm -rf -- "$DEMO_DIR" 2>/dev/null || warn "cannot remove $DEMO_DIR: remove it by hand"
	fi
	DEMO_NAME=''
}

# demo_remove_runs: remove the run's sandbox and key broker (labelled by the demo) when the run
# left them, and their networks.
demo_remove_runs() {
	_ids=$(eng ps -aq --filter "label=io.cli-sandbox.demo=$DEMO_NAME" 2>/dev/null)
	# shellcheck disable=SC2086 # one id a word
	[ -z "$_ids" ] || eng rm -f $_ids >/dev/null 2>&1
	[ -z "${DEMO_RUN_PID:-}" ] || eng network rm "cli-sandbox-gw-run-$DEMO_RUN_PID" >/dev/null 2>&1
	[ -z "${DEMO_RUN_PID:-}" ] || eng network rm "cli-sandbox-broker-run-$DEMO_RUN_PID" >/dev/null 2>&1
	return 0
}

demo_main() {
	demo_keep=false demo_json=$json
	while [ $# -gt 0 ]; do
		case $1 in
		--*=*) _a=$1; shift; set -- "${_a%%=*}" "${_a#*=}" "$@"; continue ;;
		--keep) demo_keep=true ;;
		--json) demo_json=true ;;
		--engine) need "$@"; engine=$2 engine_from=--engine; shift ;;
		--image) need "$@"; image=$2; shift ;;
		-h | --help) demo_usage; exit 0 ;;
		-*) die "unknown demo option '$1': use cli-sandbox demo [CLI] [--keep] [--json] [--engine ENGINE]" ;;
		*) set_cli "$1" ;;
		esac
		shift
	done
	cli=${cli:-claude}
	cli_load "$cli"
	# The key stays out of the sandbox only where the gateway serves the CLI (Anthropic
	# Messages): the demo shows that, so it runs those CLIs.
	case $cli in
	claude) _run="claude -p" ;;
	pi) _run="pi -p" ;;
	opencode) _run="opencode run" ;;
	*) die "the demo runs claude, pi or opencode, whose key the gateway keeps out of the sandbox; $cli's cannot be (docs/gateway.md): run 'cli-sandbox demo claude'" ;;
	esac
	case $engine in docker | podman | '') ;; *) die "unknown engine '$engine': use --engine docker or --engine podman" ;; esac
	choose_engine || die "$ERR"
	command -v "$engine" >/dev/null 2>&1 || die "$engine is not installed: install it, or choose the other engine with --engine"
	run_image
	eng image inspect "$IMG" >/dev/null 2>&1 || die "the image $IMG is not present in $engine: build it with 'sh image/build.sh' (as root)"
	kb_image_name  # the key broker holds the key (host/lib/keys.sh)
	eng image inspect "$kb_image" >/dev/null 2>&1 || die "the key broker's image $kb_image is not present in $engine: build it with 'sh image/build.sh --cli broker'"
	[ -f "$libdir/demo-model.mjs" ] || die "$libdir/demo-model.mjs is missing: reinstall cli-sandbox with its lib/ folder"
	case $libdir in *:*) die "the script's folder '$libdir' contains ':', which the engine's -v option cannot mount" ;; esac
	_subnet=${CLI_SANDBOX_DEMO_SUBNET:-198.51.100.0/28}
	_sbxnet=${CLI_SANDBOX_DEMO_SANDBOX_SUBNET:-198.51.100.16/28}
	demo_addr "$_subnet" 2; _mip=$ADDR
	# The probe: the sandbox network's last host address, which no container there holds (the
	# engine hands out the first ones): on-link, so only the firewall can refuse it.
	_bits=${_sbxnet#*/}
	demo_addr "$_sbxnet" $(((1 << (32 - _bits)) - 2)); _probe=$ADDR:443
	_timeout=${CLI_SANDBOX_DEMO_TIMEOUT:-180}
	case $_timeout in '' | *[!0-9]* | 0*) die "bad CLI_SANDBOX_DEMO_TIMEOUT '$_timeout': use a whole number of seconds, e.g. 180" ;; esac

	_t0=$(date +%s)
	DEMO_NAME=cli-sandbox-demo-$$
	DEMO_DIR=$(mktemp -d "${TMPDIR:-/tmp}/cli-sandbox-demo.XXXXXX") || die "cannot create a temporary folder in ${TMPDIR:-/tmp}: set TMPDIR to a writable folder"
	trap demo_remove EXIT
	trap 'exit 129' HUP
	trap 'exit 130' INT
	trap 'exit 143' TERM
	_ws=$DEMO_DIR/workspace _home=$DEMO_DIR/home
	mkdir -m 755 -- "$_ws" "$_home" || die "cannot create folders in $DEMO_DIR"
	# Root's sandbox user is uid 1000 (docs/host-script.md, "Who owns what"): the workspace
	# made here is given to it; a person's own run writes as the person.
	_uid=$(id -u) _owner=$_uid _inside=1000
	if [ "$_uid" = 0 ]; then
		_owner=1000
		chown 1000:1000 -- "$_ws" || die "cannot give $_ws to uid 1000: check the file system of ${TMPDIR:-/tmp}"
	elif [ "$engine" = docker ]; then
		_inside=$_uid
	fi
	demo_say "cli-sandbox demo: $cli under $engine, in $IMG; folder $DEMO_DIR"

	# The key: yours when exported (it reaches the key broker and the model, never the sandbox),
	# else a throwaway one that stands in for it.
	_keyvar=ANTHROPIC_API_KEY _keyfrom=yours _keywhat='your key'
	var_get "$_keyvar"; _key=$VAL
	if [ -z "$_key" ]; then
		_key=demo-throwaway-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
		[ ${#_key} -eq 47 ] || die "cannot read 16 random bytes from /dev/urandom for the throwaway key"
		var_set "$_keyvar" "$_key"
		_keyfrom=throwaway _keywhat='the throwaway key'
	fi

	# The model: its own internal network, no capability, read-only, as the image's node.
	_err=$(eng network create --internal --subnet "$_subnet" "$DEMO_NAME" 2>&1 >/dev/null) ||
		die "cannot create the demo's network $DEMO_NAME on $_subnet: $(printf '%s\n' "$_err" | tail -n 1); choose another range with CLI_SANDBOX_DEMO_SUBNET"
	# shellcheck disable=SC2086 # the extra engine words are split on purpose (globbing is off)
	_err=$(eng run -d --name "$DEMO_NAME-model" --network "$DEMO_NAME" --ip "$_mip" \
		--label "io.cli-sandbox.demo=$DEMO_NAME" --user 1000:1000 --cap-drop=ALL \
		--security-opt=no-new-privileges --read-only --pids-limit 64 --memory 256m \
		${CLI_SANDBOX_ENGINE_ARGS:-} -v "$libdir/demo-model.mjs:$DEMO_MODEL_MOUNT:ro" \
		--entrypoint node "$IMG" "$DEMO_MODEL_MOUNT" --listen "$_mip" --port "$DEMO_PORT" --probe "$_probe" --max-seconds 900 2>&1 >/dev/null) ||
		die "the demo's model did not start: $(printf '%s\n' "$_err" | tail -n 1)"
	_i=0
	until eng logs "$DEMO_NAME-model" 2>/dev/null | grep -q '^demo-model listening'; do
		_i=$((_i + 1))
		[ "$_i" -le 100 ] || die "the demo's model did not answer within 20 seconds: $(eng logs "$DEMO_NAME-model" 2>&1 | tail -n 1)"
		sleep 0.2
	done
	demo_say "model: $_mip:$DEMO_PORT on the internal network $DEMO_NAME ($_subnet)"

	# The person's run, through this script: a named endpoint (the key broker
	# holds the key), a home and a CLI_SANDBOX_HOME in the folder, so nothing of yours is read
	# or written. The run's sandbox and key broker carry the demo's label, for the clean-up.
	HOME=$_home CLI_SANDBOX_HOME=$_home/.config/cli-sandbox \
		"$SELF" endpoints add demo "http://$_mip:$DEMO_PORT" --type anthropic --speaks anthropic \
		--model demo-model --key-env "$_keyvar" >/dev/null || die "cannot record the demo's endpoint in $_home"
	demo_say "running: cli-sandbox --endpoint demo --keep-keys-out $_run '...' (in $_ws)"
	# The variables on the command alone (an empty *_NETWORK counts as unset: the run's own).
	# exec env: the run's PID is this subshell's (the clean-up names its networks after it).
	# shellcheck disable=SC2086 # the CLI and its non-interactive flag
	(cd -- "$_ws" && exec env HOME="$_home" CLI_SANDBOX_HOME="$_home/.config/cli-sandbox" \
		CLI_SANDBOX_GATEWAY_UPSTREAM_NETWORK="$DEMO_NAME" CLI_SANDBOX_GATEWAY_SUBNET="$_sbxnet" CLI_SANDBOX_GATEWAY_NETWORK= \
		CLI_SANDBOX_BROKER_UPSTREAM_NETWORK="$DEMO_NAME" CLI_SANDBOX_BROKER_SUBNET="$_sbxnet" CLI_SANDBOX_BROKER_NETWORK= \
		CLI_SANDBOX_ENGINE_ARGS="${CLI_SANDBOX_ENGINE_ARGS:-} --label io.cli-sandbox.demo=$DEMO_NAME" \
		CLI_SANDBOX_ENGINE="$engine" CLI_SANDBOX_IMAGE="$image" \
		"$SELF" --endpoint demo --keep-keys-out $_run "Run the checks you are asked for.") \
		</dev/null >"$DEMO_DIR/cli.out" 2>"$DEMO_DIR/cli.err" &
	DEMO_RUN_PID=$!
	# A run that hangs is ended by removing its containers (the engine then returns). The
	# watchdog looks once a second, so it ends by itself a second after the run.
	(
		_s=0
		while [ "$_s" -lt "$_timeout" ] && kill -0 "$DEMO_RUN_PID" 2>/dev/null; do sleep 1; _s=$((_s + 1)); done
		! kill -0 "$DEMO_RUN_PID" 2>/dev/null || demo_remove_runs
	) >/dev/null 2>&1 &
	DEMO_WATCHDOG=$!
	wait "$DEMO_RUN_PID"
	_rc=$?
	wait "$DEMO_WATCHDOG"
	DEMO_WATCHDOG=''
	eng logs "$DEMO_NAME-model" >"$DEMO_DIR/model.log" 2>&1
	demo_judge
	_t1=$(date +%s)
	demo_report $((_t1 - _t0))
}

# demo_judge: the verdict of each step, from the workspace, the model's log and the init's
# lines on the run's stderr (the run's own exit status, _rc, is shown, not judged).
demo_judge() {
	# 1. the file, on the host, and its owner
	_f=$_ws/hello.txt
	if [ -f "$_f" ] && [ ! -L "$_f" ] && [ "$(cat -- "$_f")" = 'hello from the sandbox' ]; then
		_l=$(ls -nd -- "$_f")
		# shellcheck disable=SC2086 # mode, links, owner, group
		set -- $_l
		if [ "$3" = "$_owner" ]; then
			demo_step written true "$_f is on the host, owned by uid $3$( [ "$_uid" = 0 ] && printf ' (the sandbox user: run as root)' || printf ' (you)')"
		else
			demo_step written false "$_f is owned by uid $3, not uid $_owner"
		fi
	else
		demo_step written false "no $_f with the model's text: the agent did not write it (see $DEMO_DIR/cli.err with --keep)"
	fi
	# 2. the connections: each failed at once (not the 5 s timeout). A reset ("Connection
	# refused") is the firewall's, and must be in its block log; "Network is unreachable" is
	# the kernel's, before any firewall: the broker's network is internal, with no route out.
	# The probe, on the sandbox's own network, is routed, so the firewall must be what refuses it.
	_conn=$(demo_result connect)
	_ok=true _d=''
	for _dest in 203.0.113.10:443 169.254.169.254:80 "$_probe"; do
		_line=$(printf '%s\n' "$_conn" | grep "^connect $_dest rc=" | head -n 1)
		_r=$(printf '%s\n' "$_line" | sed -n 's/.* rc=\([0-9]*\) .*/\1/p')
		_ms=$(printf '%s\n' "$_line" | sed -n 's/.* ms=\([0-9]*\) .*/\1/p')
		_e=${_line#* error=}
		_blk=$(grep "^cli-sandbox-init: blocked: .*refused tcp to ${_dest%:*} port ${_dest#*:} " "$DEMO_DIR/cli.err" | head -n 1)
		if [ -z "$_line" ]; then
			_ok=false _d="$_d; $_dest: the model got no result"
		elif [ "$_r" = 0 ] || [ "$_r" = 124 ] || [ "${_ms:-99999}" -ge 2000 ]; then
			_ok=false _d="$_d; $_dest: not refused at once (rc $_r, $_ms ms)"
		elif [ "$_e" = 'Network is unreachable' ] && [ "$_dest" != "$_probe" ]; then
			_d="$_d; $_dest: no route, in $_ms ms"
		elif [ "$_e" != 'Connection refused' ]; then
			_ok=false _d="$_d; $_dest: failed in $_ms ms with '$_e', not the firewall's reset"
		elif [ -z "$_blk" ]; then
			_ok=false _d="$_d; $_dest: refused in $_ms ms, but not in the block log"
		else
			_d="$_d; $_dest: refused by the firewall in $_ms ms"
			DEMO_BLOCKED="${DEMO_BLOCKED:-}${DEMO_BLOCKED:+$NL}${_blk#cli-sandbox-init: blocked: }"
		fi
	done
	demo_step refused "$_ok" "${_d#; }"
	# 3. the environment: the key's value nowhere the sandbox or the run showed it
	_env=$(demo_result env)
	_names=$(printf '%s\n' "$_env" | sed -n 's/^\([A-Za-z_][A-Za-z0-9_]*\)=.*/\1/p' | tr '\n' ' ')
	if ! grep -q '^result env begin' "$DEMO_DIR/model.log"; then
		demo_step no-key false "the model got no result for 'env | grep -i -e key -e token'"
	elif grep -qF -- "$_key" "$DEMO_DIR/model.log" "$DEMO_DIR/cli.out" "$DEMO_DIR/cli.err"; then
		demo_step no-key false "the value of $_keywhat reached the sandbox or the run's output"
	else
		demo_step no-key true "no value of $_keywhat ($_keyvar) in the sandbox's environment (its matching variables: ${_names:-none }; its credential is the key broker's run token)"
	fi
	# 4. identity and capabilities
	_id=$(demo_result identity)
	_caps=$(printf '%s\n' "$_id" | grep -c '^Cap\(Inh\|Prm\|Eff\|Bnd\|Amb\):[[:space:]]*0000000000000000$')
	if printf '%s\n' "$_id" | grep -Eq "^uid=$_inside([( ]|$)" && [ "$_caps" = 5 ]; then
		demo_step capabilities true "uid $_inside in the sandbox; CapInh, CapPrm, CapEff, CapBnd, CapAmb all 0"
	elif [ -z "$_id" ]; then
		demo_step capabilities false "the model got no result for 'id; grep Cap /proc/self/status'"
	else
		demo_step capabilities false "expected uid $_inside and every capability set 0; got: $(printf '%s' "$_id" | tr '\n' ' ')"
	fi
	# 5. the ruleset the init programmed
	DEMO_DIGEST=$(sed -n 's/^cli-sandbox-init: firewall up: .* sha256=\([0-9a-f]*\).*/\1/p' "$DEMO_DIR/cli.err" | head -n 1)
	if [ -n "$DEMO_DIGEST" ]; then
		demo_step ruleset true "sha256 $DEMO_DIGEST (the init's 'firewall up' line)"
	else
		demo_step ruleset false "no 'firewall up' line from the init in the run's output"
	fi
}

# demo_report SECONDS: the summary (or the JSON object), and the exit status.
demo_report() {
	[ "$demo_keep" = true ] && _kept="kept: $DEMO_DIR" || _kept="removed (--keep keeps it)"
	if [ "$demo_json" = true ]; then
		[ -z "$DEMO_FAILED" ] && _ok=true || _ok=false
		_blk=''
		while IFS= read -r _b; do
			[ -z "$_b" ] || _blk="${_blk:+$_blk,}$(json_str "$_b")"
		done <<EOF
${DEMO_BLOCKED:-}
EOF
		printf '{"ok":%s,"cli":%s,"engine":%s,"image":%s,"folder":%s,"kept":%s,"workspace":%s,"model":%s,"probe":%s,"key":%s,"cli_exit":%s,"seconds":%s,"ruleset_sha256":%s,"blocked":[%s],"names":[%s,%s,%s],"steps":[%s]}\n' \
			"$_ok" "$(json_str "$cli")" "$(json_str "$engine")" "$(json_str "$IMG")" "$(json_str "$DEMO_DIR")" \
			"$demo_keep" "$(json_str "$_ws")" "$(json_str "http://$_mip:$DEMO_PORT")" "$(json_str "$_probe")" "$(json_str "$_keyfrom")" \
			"$_rc" "$1" "$(json_str "${DEMO_DIGEST:-}")" "$_blk" "$(json_str "$DEMO_NAME-model")" \
			"$(json_str "$DEMO_NAME")" "$(json_str "cli-sandbox-gw-run-$DEMO_RUN_PID")" "$DEMO_JSON"
	else
		if [ -n "${DEMO_BLOCKED:-}" ]; then
			echo "     the init's block log:"
			printf '%s\n' "$DEMO_BLOCKED" | sed 's/^/       /'
		fi
		echo
		echo "summary ($cli under $engine, $1 s; the CLI exited $_rc, not judged):"
		if [ -z "$DEMO_FAILED" ]; then
			echo "  written:      hello.txt in the workspace, owned by uid $_owner"
			echo "  refused:      203.0.113.10:443, 169.254.169.254:80 and $_probe (on the sandbox's network), at once; the firewall's refusals in its block log"
			echo "  no key:       the sandbox saw no value of $_keywhat, only the key broker's run token"
			echo "  capabilities: none, as uid $_inside"
			echo "  ruleset:      sha256 $DEMO_DIGEST"
		else
			echo "  FAILED:       $DEMO_FAILED (the lines above say why; --keep keeps the run's output)"
		fi
		echo "  folder:       $DEMO_DIR, $_kept"
	fi
	[ -z "$DEMO_FAILED" ] || exit 1
	exit 0
}
