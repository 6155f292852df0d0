#!/bin/sh
# Every command the README shows is run by a test (issue 22). The README's commands are its
# indented code lines (continuations joined). Each one is either run here, as the person types
# it, by the host script against a fake engine that records what it was asked, or it names the
# test that runs it for real, which must exist and say so. A README command that fits none of
# these fails: a new command in the README needs a test before it lands.
#
#   host/cli-sandbox ...     run here (fake podman on PATH; the keys exported as the README
#                            says): endpoints, models and doctor for real against the mock
#                            gateway on loopback; a CLI or shell with --dry-run, whose engine
#                            command must run the image with that command and no key's value.
#                            The quick start runs for real in tests/image/first_run.sh
#   ... ping|up|down|status  tests/gateway/backends.sh runs them through the real gateway
#   export NAME=...          the person's shell: the key each host/cli-sandbox line here sees
#   sh image/build.sh ...    tests/image/run.sh runs image/build.sh, every --cli it shows
#   sh tests/run-all.sh      .ci/run runs it
#   docker run ...           tests/image/docker.sh runs the README's docker run line verbatim
#
# usage: sh tests/host/readme.sh [README]
set -u
unset CDPATH
# No check here may send a packet anywhere: as root, run in a network namespace of our own
# that has only loopback, so a probe the script makes of a fixture's address goes nowhere.
if [ "$(id -u)" = 0 ] && [ -z "${CS_HOST_TEST_NETNS:-}" ] && command -v unshare >/dev/null 2>&1; then
	# shellcheck disable=SC2016 # expanded by the inner shell
	CS_HOST_TEST_NETNS=1 exec unshare --net sh -c 'ip link set lo up 2>/dev/null; exec sh "$0" "$@"' "$0" "$@"
fi
repo=$(cd -P -- "$(dirname -- "$0")/../.." && pwd -P) || exit 1
README=${1:-$repo/README.md}
T=$(mktemp -d) || exit 1
trap 'rm -rf -- "$T"' EXIT
trap 'exit 1' INT TERM HUP
# shellcheck disable=SC1091  # tests/lib/tap.sh: the shared TAP helper
. "$repo/tests/lib/tap.sh"

# The commands: indented lines of the README's code blocks, a trailing \ joining the next line,
# a trailing "# comment" dropped.
awk '
	/^    [^ ]/ || (cont && /^ +/) {
		l = $0; sub(/^ +/, "", l)
		if (sub(/\\$/, "", l)) { acc = acc l; cont = 1; next }
		l = acc l; acc = ""; cont = 0
		sub(/[ \t]+#[^"'\'']*$/, "", l)
		print l; next
	}
	{ cont = 0; acc = "" }' "$README" >"$T/commands"
n=$(wc -l <"$T/commands")
ok "the README shows commands ($n)" [ "$n" -gt 0 ]

# The fake engine: `run` records its arguments one per line; every query answers.
mkdir -p "$T/bin" "$T/home" "$T/ws" || exit 1
# doctor tests the workspace as the sandbox user (uid 1000 when this runs as root)
chmod 755 "$T" && chmod 777 "$T/ws" || exit 1
cat >"$T/bin/podman" <<'EOF'
#!/bin/sh
for a in "$@"; do
	case $a in
	run | build) printf '%s\n' "$@" >"$FAKE_ARGS"; exit 0 ;;
	version | info) exit 0 ;;
	image) exit 0 ;;
	network) echo 10.88.0.1; exit 0 ;;
	esac
done
exit 0
EOF
chmod +x "$T/bin/podman"
# The set-up puts cli-sandbox-ctl on PATH (image/install-host.sh): this tree's program
# (CLI_SANDBOX_CTL, else the repository's build/), else built here as install-host.sh does.
ctl=''
for c in "${CLI_SANDBOX_CTL:-}" "$repo/build/hostctl/cli-sandbox-ctl" "$repo/build/host/hostctl/cli-sandbox-ctl"; do
	[ -z "$c" ] || [ ! -x "$c" ] || { ctl=$c; break; }
done
if [ -z "$ctl" ] && cmake -S "$repo" -B "$T/ctl" -DCLI_SANDBOX_TESTS=OFF -DCLI_SANDBOX_HOST=ON >"$T/ctl.log" 2>&1 &&
	cmake --build "$T/ctl" --target cli-sandbox-ctl >>"$T/ctl.log" 2>&1; then
	ctl=$T/ctl/hostctl/cli-sandbox-ctl
fi
[ -z "$ctl" ] || ln -s "$ctl" "$T/bin/cli-sandbox-ctl"
ok "cli-sandbox-ctl is on the person's PATH, as the set-up puts it (${ctl:-not built: see cmake})" [ -x "$T/bin/cli-sandbox-ctl" ]
# The mock model gateway (tests/gateway/mock_gateway.py, the real wire formats) stands in for
# the README's servers on loopback, so that what the script asks of them (endpoints add's
# probe, models, doctor's reachability test) stays on this machine, never the addresses the
# README shows: one speaks Anthropic Messages, Chat Completions and Responses, one Ollama.
mock() {  # mock NAME ARGS...: start it, set PORT
	_m=$1
	shift
	python3 "$repo/tests/gateway/mock_gateway.py" --port 0 --max-seconds 120 "$@" >"$T/$_m.out" 2>"$T/$_m.err" &
	mocks="${mocks:-} $!"
	i=0
	while ! grep -q '^mock_gateway listening' "$T/$_m.out" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	PORT=$(sed -n 's/^mock_gateway listening on [^ ]* //p' "$T/$_m.out")
}
# shellcheck disable=SC2086 # the PIDs, one word each
trap 'kill ${mocks:-} 2>/dev/null; rm -rf -- "$T"' EXIT
mock gw
port=$PORT
mock ollama --speaks ollama,chat --models qwen3:8b+tools --pullable qwen3:8b
oport=$PORT
ok "the mock gateways listen on loopback (ports ${port:-none}, ${oport:-none})" [ -n "$port" ] && [ -n "$oport" ]

KEY=sk-readme-test-$$-value
EXPORTS=''  # the variables the README has the person export so far, each given $KEY
person() {  # person COMMAND-LINE: as a person types it, in a fresh home with the keys exported
	rm -f "$T/args"
	(
		cd "$T/ws" || exit 1
		# shellcheck disable=SC2086 # NAME=VALUE words
		env -i PATH="$T/bin:/usr/bin:/bin" HOME="$T/home" FAKE_ARGS="$T/args" \
			CLI_SANDBOX_ENGINE=podman CLI_SANDBOX_HOST_ADDRESS=127.0.0.1 $EXPORTS \
			sh -c "$1" >"$T/out" 2>&1 </dev/null
	)
}
# word W: W is one argument of the engine command that --dry-run printed
word() { grep -qxF -- "  '$1' \\" "$T/out" || grep -qxF -- "  '$1'" "$T/out"; }
# runs CMD: the printed engine command is a run whose init command (after --) is CMD
runs() {
	word run && word -- || return 1
	_next=$(sed -n "/^  '--' /,\$p" "$T/out" | sed -n 2p)
	[ "$_next" = "  '$1' \\" ] || [ "$_next" = "  '$1'" ]
}
local_urls() {
	sed -e "s|http://10\.0\.0\.5:8080|http://127.0.0.1:$port|g" -e "s|http://localhost:11434|http://localhost:$oport|g" \
		-e "s|http://192\.168\.1\.20:8000|http://127.0.0.1:$port|g"
}

while IFS= read -r line; do
	case $line in
	host/cli-sandbox*" ping"* | host/cli-sandbox*" up" | host/cli-sandbox*" down" | host/cli-sandbox*" status"*)
		sub=$(printf '%s\n' "$line" | grep -o ' \(ping\|up\|down\|status\)\b' | head -1)
		ok "README: '$line': tests/gateway/backends.sh runs${sub} through the real gateway" \
			grep -q "CS [^#]*${sub}\( \|\$\)" "$repo/tests/gateway/backends.sh" ;;
	host/cli-sandbox*" demo"*)
		# shellcheck disable=SC2016 # the test's own literal "$CS"
		ok "README: '$line': tests/image/demo.sh runs the demo under podman and dockerd" \
			grep -q '"$CS" .* demo claude' "$repo/tests/image/demo.sh" ;;
	host/cli-sandbox*)
		cmd="$repo/$(printf '%s\n' "$line" | local_urls)"
		case " $line " in
		*" endpoints "* | *" models "* | *" doctor"* | *" --help"* | *" build"*)
			person "$cmd"
			ok "README: '$line' succeeds" [ $? -eq 0 ] ;;
		*)
			cli=claude
			for c in claude codex pi gemini opencode shell; do
				case " $line " in *" $c "*) cli=$c; break ;; esac
			done
			# the dry run: the engine command, with the gateway's plan where one is needed
			person "$repo/host/cli-sandbox --dry-run ${cmd#"$repo/host/cli-sandbox "}"
			ok "README: '$line' (--dry-run) succeeds" [ $? -eq 0 ]
			[ "$cli" != shell ] || cli=bash
			ok "README: '$line' runs the image with $cli as the init's command" runs "$cli"
			ok "README: '$line' passes the exported keys by name, never a value" sh -c "! grep -qF '$KEY' '$T/out'"
			;;
		esac
		;;
	export\ *=*)
		v=${line#export }
		v=${v%%=*}
		EXPORTS="$EXPORTS $v=$KEY"
		ok "README: '$line' is the person's shell: $v is exported for the lines below" true ;;
	"sh image/build.sh"*)
		ok "README: '$line': tests/image/run.sh runs image/build.sh" grep -q 'image/build.sh' "$repo/tests/image/run.sh"
		case $line in
		*--cli\ *)
			for c in $(printf '%s\n' "${line#*--cli }" | cut -d' ' -f1 | tr ',' ' '); do
				ok "README: '$line': run.sh builds $c's image" grep -q -- "--cli [a-z,]*$c" "$repo/tests/image/run.sh"
			done ;;
		esac ;;
	"sh tests/run-all.sh") ok "README: '$line': .ci/run runs it" grep -q 'tests/run-all.sh' "$repo/.ci/run" ;;
	"docker run "*)
		ok "README: '$line': tests/image/docker.sh runs the README's docker run line" \
			grep -q 'README' "$repo/tests/image/docker.sh" ;;
	*) ok "README: '$line' is run by a test (none here knows this command: add one)" false ;;
	esac
done <"$T/commands"
t_done
