#!/bin/sh
# runner.sh CTL: cli-sandbox-ctl runner, the runner's one call (docs/hostctl.md, "runner"): its
# lines in order, the endpoints file's check first, a missing endpoint stopping before the
# limits, the limits' errors, the CLI's row from base/cli_names.c, the ids and CapBnd against
# /proc/self/status, and the workspace's write test as the sandbox user (as root: the kernel
# asked as uid 1000, a folder's parents not counting); runner --argv (the program's own command on
# the descriptor named, a refusal in the script's words, a run's choices then its facts, ws_error);
# host-address and --url. Prints TAP.
set -u
# shellcheck disable=SC1091  # tests/lib/tap.sh: the shared TAP helper
. "$(cd "$(dirname "$0")/.." && pwd)/lib/tap.sh"
CTL=$1
T=$(mktemp -d) || exit 1
trap 'rm -rf -- "$T"' EXIT
mkdir -p "$T/home/conf" "$T/ws"
export HOME="$T/home" CLI_SANDBOX_HOME="$T/home/conf"
unset CLI_SANDBOX_PIDS_LIMIT CLI_SANDBOX_MEMORY CLI_SANDBOX_CPUS CLI_SANDBOX_NOFILE CLI_SANDBOX_TMP_SIZE
run() { "$CTL" runner "$@" >"$T/out" 2>"$T/err"; rc=$?; }
line() { for _l in "$@"; do grep -qxF -- "$_l" "$T/out" || return 1; done; }  # line LINE...: out has each
no_key() { ! grep -q "^$1=" "$T/out"; }
status_is() { [ "$rc" = "$1" ]; }
has_key() { grep -q "^$1=" "$T/out"; }
lacks() { ! grep -q -- "$1" "$2"; }
quiet() { [ ! -s "$T/err" ]; }
last_line_is() { [ "$(tail -n 1 "$T/out")" = "$1" ]; }
one_err_line() { [ "$(wc -l <"$T/err")" = 1 ]; }
# order KEY...: the first lines of these keys come in this order
order() { [ "$(sed 's/=.*//' "$T/out" | grep -xF -e "$(printf '%s\n' "$@")" | uniq | tr '\n' ' ')" = "$* " ]; }

run --cli codex
ok "the CLI's row alone: exit 0" [ "$rc" = 0 ]
ok "... the names, codex's folder, variable, login file and keys (base/cli_names.c)" line \
	"clis=claude codex pi gemini opencode" cli_dir=.codex cli_var=CODEX_HOME cli_sub=. cli_logins=auth.json \
	"cli_keys=OPENAI_API_KEY CODEX_API_KEY"
ok "... the ids are this process's (id -u, id -g)" line "uid=$(id -u)" "gid=$(id -g)"
# CAP_SYS_RESOURCE is bit 24 of CapBnd, read here by awk as the runner read it before.
want=no
awk '/^CapBnd:/ { exit !(index("13579bdfBDF", substr($2, length($2) - 6, 1)) > 0) }' /proc/self/status && want=yes
ok "... cap_sys_resource=$want, as CapBnd says" line "cap_sys_resource=$want"
run --cli gemini
ok "gemini: no state variable (empty), its folder and login" line cli_var= cli_sub= cli_dir=.gemini cli_logins=oauth_creds.json
run --cli nope
ok "an unknown CLI: exit 2" status_is 2
ok "... one line" one_err_line

printf 'loc http://192.0.2.1:4000/v1 type=anthropic speaks=anthropic key-env=MY_KEY\n' >"$T/home/conf/endpoints"
echo loc >"$T/home/conf/current"
MY_KEY=not-a-key run --cli claude --check-endpoints --selected --limits --workspace "$T/ws" --plan
ok "the selected endpoint, planned: exit 0" [ "$rc" = 0 ]
ok "... the CLI, the ids, the endpoint, the limits, the workspace, the plan, in that order" \
	order clis cli_dir uid cap_sys_resource ep_name ep_url ep_key_env lim_pids lim_text ws_writable ws_path route
ok "... no value of the key anywhere" lacks not-a-key "$T/out"
ok "... ep_url and ep_key_env as the file has them" line ep_url=http://192.0.2.1:4000/v1 ep_key_env=MY_KEY
ok "... the workspace's canonical path" line "ws_path=$(cd -P "$T/ws" && pwd -P)"
ok "... the plan's route (keys out: the broker)" line "route=broker"
env -u MY_KEY "$CTL" runner --cli claude --selected --plan >"$T/out" 2>"$T/err"; rc=$?
ok "a refused plan (its key-env unset): exit 2, route=refused and the reason in the lines" line route=refused
ok "... exit 2" status_is 2
ok "... nothing on stderr (the runner says it)" quiet
run --cli claude --check-endpoints --endpoint gone --limits --plan
ok "a named endpoint that is not there: exit 0" status_is 0
ok "... ep_name and nothing after it (the runner says so before any limit)" last_line_is ep_name=gone
run --cli claude --check-endpoints --endpoint gone --managed http://192.0.2.2:1 --limits --plan
ok "... with --managed URL: the limits and the URL's plan all the same" has_key lim_text
ok "... (the URL's)" line url=http://192.0.2.2:1
ok "... (no ep_url)" no_key ep_url
run --cli claude --check-endpoints --limits --memory lots
ok "a bad limit: exit 2" status_is 2
ok "... the limits' one line, naming the option" grep -q -e "--memory" "$T/err"
ok "... one line" one_err_line
run --cli claude --check-endpoints --limits --pids-limit 77
ok "an option's limit wins" line "lim_pids=77"
printf 'loc http://192.0.2.1:4000/v1\nbad http://192.0.2.1:1 key-env=1x\n' >"$T/home/conf/endpoints"
run --cli claude --check-endpoints --limits
ok "a bad endpoints file: exit 2" status_is 2
ok "... its file and line (endpoints list's words)" grep -q "endpoints line 2: bad key-env=" "$T/err"
ok "... nothing on stdout" test ! -s "$T/out"
"$CTL" endpoints list >/dev/null 2>"$T/err2"
ok "... the same line as endpoints list" cmp -s "$T/err" "$T/err2"
run --cli claude --limits
ok "... unread without --check-endpoints or an endpoint" [ "$rc" = 0 ]
rm -f "$T/home/conf/endpoints"

if [ "$(id -u)" = 0 ]; then
	# As root the sandbox user is uid 1000: the kernel is asked as that uid.
	mkdir -p "$T/ro" "$T/locked/open" && chmod 755 "$T/ro" && chmod 700 "$T/locked" && chmod 777 "$T/locked/open"
	run --cli claude --workspace "$T/ro"
	ok "as root: a root-owned 755 folder is not writable by uid 1000, tested as that uid" line ws_writable=no "ws_how=tested as that uid"
	run --cli claude --workspace "$T/locked/open"
	ok "... a 777 folder under a 700 one is (its parents do not count: the container gets the folder itself)" line "ws_writable=yes"
else
	mkdir -p "$T/mine" && chmod 700 "$T/mine"
	run --cli claude --workspace "$T/mine"
	ok "a folder of mine, mode 700: writable, by its mode bits" line ws_writable=yes "ws_how=by its mode bits"
fi
run --cli claude --workspace "$T/nowhere"
ok "a missing workspace: not writable" line ws_writable=no
ok "... and no ws_path (the runner says why)" no_key ws_path
run --cli claude --frob
ok "an unknown argument: exit 2" [ "$rc" = 2 ]
# --choose-engine: docker's daemon asked on its socket (no client started), podman when it does not
# answer; --identity and --socket (docs/hostctl.md, "runner", 0 and 8). A fake docker and podman
# that record being started: neither may be, for a local socket.
mkdir -p "$T/eng"
# shellcheck disable=SC2016 # $0 is the fake's own, expanded when it runs
printf '#!/bin/sh\necho "$0" >>"%s/started"\nexit 0\n' "$T" >"$T/eng/docker"
cp "$T/eng/docker" "$T/eng/podman" && chmod +x "$T/eng/docker" "$T/eng/podman"
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$T/dead.sock"
PATH="$T/eng:$PATH" DOCKER_HOST=unix://$T/dead.sock run --cli codex --choose-engine --engine-required
ok "--choose-engine, docker's socket refusing: podman, with docker's own words" line engine=podman \
	"engine_why=docker's daemon does not answer (Cannot connect to the Docker daemon at unix://$T/dead.sock. Is the docker daemon running?), so podman (it needs no daemon)"
ok "... first, before the CLI's row" order engine engine_why clis
ok "... and no engine's client was started" [ ! -e "$T/started" ]
PATH="$T/eng:$PATH" DOCKER_HOST=unix://$T/none.sock run --cli codex --choose-engine
ok "no socket where DOCKER_HOST says: said without asking" line "engine_why=docker's daemon does not answer (no daemon socket at $T/none.sock), so podman (it needs no daemon)"
PATH="$T/eng:$PATH" DOCKER_HOST=tcp://192.0.2.1:2375 run --cli codex --choose-engine
ok "a remote DOCKER_HOST: docker's client is asked (it answers here: docker)" line engine=docker "engine_why=docker's daemon answers"
ok "... the client was started" grep -q docker "$T/started"
rm -f "$T/started"
PATH="$T/bin-none" DOCKER_HOST=unix://$T/dead.sock run --cli codex --choose-engine --engine-required
ok "neither engine: engine_error, the one line, and nothing after it (exit 0)" \
	sh -c "grep -q '^engine_error=no container engine answers: docker is not installed and podman is not installed' '$T/out' && [ \$(wc -l <'$T/out') = 1 ] && [ $rc = 0 ]"
PATH="$T/bin-none" run --cli codex --choose-engine
ok "... without --engine-required (doctor) the rest follows" line "clis=claude codex pi gemini opencode"
run --cli codex --engine docker --identity --uid 1234 --gid 100
ok "--identity, dockerd as 1234:100: the person's ids, their folder, the words a line each" line uid=1234 sb_uid=1234 \
	sb_gid=100 "state_host=$HOME/.codex" state_for_sb=false own_note= id_arg=-e id_arg=CLI_SANDBOX_USER=1234:100 \
	id_arg=CODEX_HOME=/home/node/.codex
run --cli codex --engine podman --identity --uid 0 --gid 0
ok "--identity as root: uid 1000, a folder of its own, the note" line sb_uid=1000 "state_host=$CLI_SANDBOX_HOME/state/codex" state_for_sb=true
ok "... and no identity word" no_key id_arg
: >"$T/sock"
CLI_SANDBOX_DOCKER_SOCKET=$T/sock run --cli codex --engine docker --socket
ok "--socket: the socket and its group" line "sock=$T/sock" "sock_gid=$(stat -c %g "$T/sock")"
DOCKER_HOST=tcp://192.0.2.1:2375 run --cli codex --engine docker --socket
ok "--socket, DOCKER_HOST not a unix socket: the error line" line \
	"sock_error=DOCKER_HOST=tcp://192.0.2.1:2375 is not a unix socket: set CLI_SANDBOX_DOCKER_SOCKET to the socket's path"
CLI_SANDBOX_DOCKER_SOCKET=$T/nosock run --cli codex --engine podman --socket
ok "--socket, no such socket: says so" line "sock_error=the podman socket $T/nosock does not exist: start podman's API service (podman: systemctl start podman.socket) or set CLI_SANDBOX_DOCKER_SOCKET"

# host-address: the engine's answer read (a fake engine that prints FAKE_GW and records its words)
NL='
'
mkdir -p "$T/bin"
cat >"$T/bin/docker" <<'EOF'
#!/bin/sh
printf '%s\n' "$*" >"$FAKE_ARGS"
printf '%s\n' "$FAKE_GW"
EOF
cp "$T/bin/docker" "$T/bin/podman" && chmod +x "$T/bin/docker" "$T/bin/podman"
addr() {  # addr ENGINE FAKE_GW [ARGS...]: the address printed, or "exit N"
	_e=$1 _g=$2; shift 2
	_a=$(FAKE_GW=$_g FAKE_ARGS=$T/args PATH="$T/bin:$PATH" "$CTL" host-address "$_e" "$@") || _a="exit $?"
	printf '%s' "$_a"
}
ok "host-address: docker's gateway" [ "$(addr docker '172.17.0.1|172.17.0.0/16')" = 172.17.0.1 ]
addr docker '172.17.0.1|172.17.0.0/16' '' -- --host unix:///x >/dev/null
ok "... docker's bridge asked, the global arguments first" \
	[ "$(cat "$T/args")" = "--host unix:///x network inspect bridge --format {{range .IPAM.Config}}{{.Gateway}}|{{.Subnet}} {{end}}" ]
ok "... no gateway listed (docker 20.10, --subnet alone): the subnet's first address" [ "$(addr docker '|172.18.0.0/16')" = 172.18.0.1 ]
ok "... an IPv6 range skipped" [ "$(addr docker 'fd00::1|fd00::/64 |10.1.2.0/24')" = 10.1.2.1 ]
ok "... nothing usable: exit 1" [ "$(addr docker 'garbage 300.1.1.1|x')" = "exit 1" ]
ok "podman: its network's gateway, on the network named" [ "$(addr podman '10.88.0.1' upnet)" = 10.88.0.1 ]
ok "... that network asked" [ "$(cat "$T/args")" = "network inspect upnet --format {{range .Subnets}}{{.Gateway}} {{end}}" ]
# --url (the runner's host_url): the URL's host replaced, its port and path kept; the fixes
hurl() { (unset CLI_SANDBOX_HOST_ADDRESS; FAKE_GW=$1 FAKE_ARGS=$T/args PATH="$T/bin:$PATH" "$CTL" host-address --url "$2" --uid "$3" "$4" ${5:-}); }
ok "host-address --url: host replaced, port and path kept" \
	[ "$(hurl 172.17.0.1 http://localhost:11434/v1/x 1000 docker)" = "host_url=http://172.17.0.1:11434/v1/x${NL}host_addr=172.17.0.1" ]
ok "... no port" [ "$(hurl 172.17.0.1 https://host/api 1000 docker)" = "host_url=https://172.17.0.1/api${NL}host_addr=172.17.0.1" ]
ok "... CLI_SANDBOX_HOST_ADDRESS first, the engine not asked" sh -c 'rm -f "$1"; [ "$(CLI_SANDBOX_HOST_ADDRESS=192.0.2.9 FAKE_ARGS=$1 PATH="$2" "$3" host-address --url http://127.0.0.1:8080 docker)" = "host_url=http://192.0.2.9:8080${4}host_addr=192.0.2.9" ] && [ ! -e "$1" ]' _ "$T/args" "$T/bin:$PATH" "$CTL" "$NL"
ok "... rootless podman: refused with the fix" sh -c 'case $1 in "host_error=rootless podman has no fixed address"*CLI_SANDBOX_HOST_ADDRESS*) ;; *) exit 1 ;; esac' _ "$(hurl 10.88.0.1 http://localhost:1 1000 podman)"
ok "... rootful podman: the network's gateway" [ "$(hurl 10.88.0.1 http://localhost:1 0 podman upnet)" = "host_url=http://10.88.0.1:1${NL}host_addr=10.88.0.1" ]
ok "... no address: the network named in the fix" sh -c 'case $1 in "host_error=cannot learn the host'"'"'s address from docker'"'"'s network upnet: start docker"*) ;; *) exit 1 ;; esac' _ "$(hurl garbage http://localhost:1 0 docker upnet)"
# runner --argv: the person's words (docs/hostctl.md, "runner --argv")
"$CTL" runner --argv --stdout-fd 3 -- endpoints list 3>"$T/term" >"$T/out" 2>"$T/err"; rc=$?
ok "--argv: the program's own command runs in place, its output on --stdout-fd's descriptor" \
	sh -c '[ "$1" = 0 ] && [ ! -s "$2/out" ] && grep -q "no endpoints" "$2/term"' _ "$rc" "$T"
"$CTL" runner --argv --stdout-fd 3 -- --json --frob 3>"$T/term" >"$T/out" 2>"$T/err"; rc=$?
ok "... a refusal is the script's line, exit 2, nothing on either output" \
	sh -c '[ "$1" = 2 ] && [ ! -s "$2/out" ] && [ ! -s "$2/term" ] && grep -qx "cli-sandbox: unknown option .--frob.: see cli-sandbox --help.*" "$2/err"' _ "$rc" "$T"
run --argv -- --dry-run -w "$T/ws" --engine docker --managed http://192.0.2.1:4000 codex exec hi
ok "... a run: its choices, then the facts, one call" sh -c '[ "$1" = 0 ]' _ "$rc"
ok "... the choices and the words the script shifts (8: codex's are exec hi)" line arg_cmd=run arg_used=8 arg_cli=codex \
	arg_cli_named=true arg_profile=managed arg_url=http://192.0.2.1:4000 arg_dry_run=true arg_keys_in=false \
	engine=docker "engine_why=chosen with --engine"
ok "... then the facts asked as a run asks them: the row, limits, workspace, identity, plan" order arg_cmd engine clis \
	cli_dir lim_pids ws_writable ws_path sb_uid route
run --argv -- --engine docker codex build --pull
ok "... a CLI's build with the engine named: the choices alone (the engine's words are --pull)" \
	sh -c '[ "$1" = 0 ] && grep -qx arg_cmd=build "$2" && grep -qx arg_used=4 "$2" && ! grep -q "^clis=" "$2"' _ "$rc" "$T/out"
run --argv -- --engine docker --endpoint nope claude
ok "... no such endpoint: the script's refusal, said here" \
	sh -c '[ "$1" = 2 ] && grep -qx "cli-sandbox: no endpoint named .nope.: see .cli-sandbox endpoints list." "$2"' _ "$rc" "$T/err"
run --argv -- --engine docker --interactive -w "$T/home" claude
ok "... the home as the workspace: ws_error, for the script to refuse with" \
	grep -qx "ws_error=refusing to mount your home directory $T/home as the workspace (it holds your credentials): cd into a project directory or pass --workspace DIR" "$T/out"
run --argv --stdout-fd 1 -- endpoints list
ok "... --stdout-fd 0, 1 or 2 refused" sh -c '[ "$1" = 2 ]' _ "$rc"
"$CTL" runner --help >"$T/out"
ok "runner --help" grep -q "^Usage: cli-sandbox-ctl runner" "$T/out"
# cli-sandbox --help is the program's usage: every CLI of the table, by name and with its variables
"$CTL" usage >"$T/out"
ok "usage: cli-sandbox's help" grep -q "^Usage: cli-sandbox \[OPTIONS\] \[CLI \[CLI-ARGS...\]\]" "$T/out"
clis=$("$CTL" runner --cli claude | sed -n 's/^clis=//p')
ok "... the table names CLIs" [ -n "$clis" ]
ok "... its CLIs line is the table's" grep -qx "CLIs: $(printf '%s' "$clis" | sed 's/ /, /g')" "$T/out"
for c in $clis; do
	keys=$("$CTL" runner --cli "$c" | sed -n 's/^cli_keys=//p')
	# the CLI's lines: its own, then the folded ones under it, up to the next CLI or a blank line
	got=$(awk -v c="$c" '$1 == c && /^  [a-z]/ { on = 1; $1 = ""; printf "%s", $0; next }
		on && /^            / { printf " %s", $0; next } { on = 0 }' "$T/out" | tr -s ' ' | sed 's/^ //')
	ok "... $c's variables, all of them, in the table's order" [ "$got" = "$keys" ]
done
ok "... no line wider than 95 columns" [ "$(awk 'length > 95' "$T/out" | wc -l)" -eq 0 ]
t_done
