# host/lib/demo.sh: `cli-sandbox demo`: watch the sandbox do its job with no model server and
# shellcheck shell=sh
# no key of your own. Sourced by host/cli-sandbox; docs/host-script.md, "See it work".
#
# A scripted model (host/lib/demo-model.mjs, node, in a container of the sandbox's own image,
# as an unprivileged user, on an internal network with no route out) asks the agent for tool
# calls; the real CLI runs against it through this very script, as a person's run does
# (endpoint, the key broker, firewall, identity, limits), in a temporary
# workspace and home. Then the host program (cli-sandbox-ctl demo-report) judges each step by
# what the model received and by the files, never by the CLI's exit status, and reports.

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

# first_host A.B.C.D/N: set FIRST to the subnet's first host address (N at most 30).
first_host() {
	_ip=${1%/*} _n=${1#*/}
	case $_n in '' | *[!0-9]*) return 1 ;; esac
	[ "$_n" -ge 1 ] && [ "$_n" -le 30 ] || return 1
	_v=0 _rest=$_ip.
	for _i in 1 2 3 4; do
		_o=${_rest%%.*} _rest=${_rest#*.}
		case $_o in '' | *[!0-9]*) return 1 ;; esac
		[ "$_o" -le 255 ] || return 1
		_v=$((_v * 256 + _o))
	done
	_v=$(((_v >> (32 - _n) << (32 - _n)) + 1))
	FIRST=$((_v >> 24 & 255)).$((_v >> 16 & 255)).$((_v >> 8 & 255)).$((_v & 255))
}

# cli_load NAME: the CLI's row alone (a run reads it with the rest, from runner --argv).
cli_load() {
	ctl_read runner --cli "$1"
}

# demo_addr SUBNET N: set ADDR to SUBNET's N-th host address (first_host is the 1st).
demo_addr() {
	first_host "$1" || die "bad subnet '$1': use A.B.C.D/N with N between 1 and 30, e.g. 198.51.100.0/28"
	ADDR=${FIRST%.*}.$((${FIRST##*.} + $2 - 1))
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
		--engine) need "$@"; engine=$2; shift ;;
		--image) need "$@"; image=$2; shift ;;
		-h | --help) demo_usage; exit 0 ;;
		-*) die "unknown demo option '$1': use cli-sandbox demo [CLI] [--keep] [--json] [--engine ENGINE]" ;;
		*) is_cli "$1" || die "unknown CLI '$1': use one of $(cli_names)"
			[ -z "$cli" ] || [ "$cli" = "$1" ] || die "choose one CLI, not both $cli and $1"
			cli=$1 ;;
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
	if [ -z "$engine" ]; then  # docker when its daemon answers, else podman (cli-sandbox-ctl runner)
		ENGINE_ERR=''
		ctl_read runner --cli "$cli" --choose-engine --engine-required
		[ -n "$engine" ] || die "$ENGINE_ERR"
	fi
	command -v "$engine" >/dev/null 2>&1 || die "$engine is not installed: install it, or choose the other engine with --engine"
	run_image
	eng image inspect "$IMG" >/dev/null 2>&1 || die "the image $IMG is not present in $engine: build it with 'sh image/build.sh' (as root)"
	kb_image_name  # the key broker holds the key (host/lib/keys.sh)
	eng image inspect "$kb_image" >/dev/null 2>&1 || die "the key broker's image $kb_image is not present in $engine: build it with 'sh image/build.sh --cli broker'"
	ctl_find  # the judge (cli-sandbox-ctl demo-report), found before anything starts
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
	_keyvar=ANTHROPIC_API_KEY _keyfrom=yours
	var_get "$_keyvar"; _key=$VAL
	if [ -z "$_key" ]; then
		_key=demo-throwaway-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
		[ ${#_key} -eq 47 ] || die "cannot read 16 random bytes from /dev/urandom for the throwaway key"
		var_set "$_keyvar" "$_key"
		_keyfrom=throwaway
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
	# The verdict and the report are the host program's (cli-sandbox-ctl demo-report,
	# docs/hostctl.md): it judges each step by what the model received, by the init's lines on
	# the run's stderr and by the files, never by the CLI's exit status (shown, not judged). The
	# key's value it searches for it reads from $_keyvar itself: never on a command line.
	set -- --folder "$DEMO_DIR" --workspace "$_ws" --owner "$_owner" --inside "$_inside" \
		--probe "$_probe" --key-env "$_keyvar" --key "$_keyfrom" --cli "$cli" --engine "$engine" \
		--image "$IMG" --model "http://$_mip:$DEMO_PORT" --name "$DEMO_NAME-model" --name "$DEMO_NAME" \
		--name "cli-sandbox-gw-run-$DEMO_RUN_PID" --cli-exit "$_rc" --seconds $(($(date +%s) - _t0))
	[ "$demo_keep" = false ] || set -- "$@" --keep
	[ "$demo_json" = false ] || set -- "$@" --json
	"$CTL" demo-report "$@"
}
