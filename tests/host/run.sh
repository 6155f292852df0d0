#!/bin/sh
# Tests for host/cli-sandbox, with fake `docker` and `podman` engines on PATH.
# Prints TAP (tests/lib/tap.sh): one line per check, then the plan; exits 1 on any failure.
# Usage: sh tests/host/run.sh
# Touches only a temporary directory of its own: HOME and CLI_SANDBOX_HOME point into it.
set -u
unset CDPATH
# No check here may send a packet anywhere: as root, run in a network namespace of our own
# that has only loopback, so a probe the script makes of a fixture's address goes nowhere.
if [ "$(id -u)" = 0 ] && [ -z "${CS_HOST_TEST_NETNS:-}" ] && command -v unshare >/dev/null 2>&1; then
	# shellcheck disable=SC2016 # expanded by the inner shell
	CS_HOST_TEST_NETNS=1 exec unshare --net sh -c 'ip link set lo up 2>/dev/null; exec sh "$0" "$@"' "$0" "$@"
fi

repo=$(cd -P -- "$(dirname -- "$0")/../.." && pwd -P) || exit 1
CS=$repo/host/cli-sandbox
T=$(mktemp -d) || exit 1
# The person's XDG_RUNTIME_DIR, on memory-backed storage: where the credentials file goes.
RUN=$(mktemp -d /dev/shm/cs-host-test.XXXXXX) || exit 1
listener_pid=''
cleanup() {
	# shellcheck disable=SC2086 # one PID a word
	[ -z "$listener_pid" ] || kill $listener_pid 2>/dev/null
	rm -rf -- "$T" "$RUN"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# shellcheck disable=SC1091  # tests/lib/tap.sh: the shared TAP helper
. "$repo/tests/lib/tap.sh"
pass() { t_pass "$1"; }
fail() { t_fail "$1" "${2:-}"; }
# t DESCRIPTION COMMAND...: one check; passes when COMMAND succeeds.
t() { _d=$1; shift; if "$@"; then pass "$_d"; else fail "$_d" "$(cat "$T/why" 2>/dev/null)"; fi; rm -f "$T/why"; }
why() { printf '%s\n' "$*" >"$T/why"; }

# ---------------------------------------------------------------- the fake engine
# It records every run/build call's arguments, one per line, in $FAKE_DIR/args (and the engine's
# name first), appends queries (version, image, network) to $FAKE_DIR/queries, and answers:
#   FAKE_VERSION_RC  exit status of `version`/`info`  (default 0)
#   FAKE_DOCKER_DOWN when set, docker's `version`/`info` fail as a client without a daemon does
#   FAKE_IMAGES      the images `image inspect NAME` finds, space-separated
#                    (default: localhost/cli-sandbox:latest)
#   FAKE_IMAGE_RC    when set, the exit status of every `image inspect`, whatever the name
#   FAKE_GATEWAY     what `network inspect` prints     (default empty)
#   FAKE_RUNNING     what `inspect` (of a container) prints (default empty: no such container)
mkdir -p "$T/bin" "$T/fake" "$T/home" || exit 1
cat >"$T/bin/docker" <<'EOF'
#!/bin/sh
name=${0##*/} sub=''
for a in "$@"; do
	case $a in run | build | version | info | image | network | inspect) sub=$a; break ;; esac
done
case $sub in
version | info)
	printf '%s\n' "$name" "$@" >>"$FAKE_DIR/queries"
	if [ "$name" = docker ] && [ -n "${FAKE_DOCKER_DOWN:-}" ]; then
		echo "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?" >&2
		exit 1
	fi
	exit "${FAKE_VERSION_RC:-0}" ;;
image)
	printf '%s\n' "$name" "$@" >>"$FAKE_DIR/queries"
	[ -z "${FAKE_IMAGE_RC:-}" ] || exit "$FAKE_IMAGE_RC"
	for last in "$@"; do :; done
	case " $FAKE_IMAGES " in *" $last "*) exit 0 ;; esac
	exit 1 ;;
network) printf '%s\n' "$name" "$@" >>"$FAKE_DIR/queries"; printf '%s\n' "${FAKE_GATEWAY:-}" ;;
inspect) printf '%s\n' "$name" "$@" >>"$FAKE_DIR/queries"; [ -n "${FAKE_RUNNING:-}" ] || exit 1; printf '%s\n' "$FAKE_RUNNING" ;;
*)
	# The credentials directory's name has a random part (RANDOM in a dry run): PID in the record.
	# The protection's mounts (host/lib/protect.sh) are left out: tests/host/protect.sh checks them.
	printf '%s\n' "$name" "$@" | sed -e 's/cli-sandbox-credentials\.[0-9a-f]\{16\}/cli-sandbox-credentials.PID/' \
		-e 's/cli-sandbox-credentials\.RANDOM/cli-sandbox-credentials.PID/' |
		awk '{ a[NR] = $0 } END { for (i = 1; i <= NR; i++) {
			if ((a[i] == "-v" && a[i + 1] ~ /:(\/workspace\/.|\/home\/node\/\.(claude|codex|pi|gemini)\/|\/run\/cli-sandbox-protect\/)/) ||
			    (a[i] == "-e" && a[i + 1] ~ /^GIT_CONFIG_(COUNT|KEY_0|VALUE_0)=/)) { i++; continue }
			print a[i] } }' >"$FAKE_DIR/args"
	# What the engine would hand the container for each -e NAME (by name: from its environment),
	# and the credentials file's lines, which the init adds (its content, its and its
	# directory's mode and path recorded while the engine runs).
	: >"$FAKE_DIR/env"
	rm -f "$FAKE_DIR/credfile" "$FAKE_DIR/credmode" "$FAKE_DIR/credpath"
	prev=''
	for a in "$@"; do
		if [ "$prev" = -e ]; then
			case $a in *=*) ;; *) printf '%s=%s\n' "$a" "$(printenv "$a")" >>"$FAKE_DIR/env" ;; esac
		fi
		if [ "$prev" = -v ]; then
			case $a in *:/run/cli-sandbox-credentials/env:ro)
				f=${a%:/run/cli-sandbox-credentials/env:ro}
				printf '%s\n' "$f" >"$FAKE_DIR/credpath"
				stat -c %a -- "$f" "${f%/*}" 2>/dev/null | tr '\n' ' ' >"$FAKE_DIR/credmode"
				cp -- "$f" "$FAKE_DIR/credfile" 2>/dev/null && cat -- "$f" >>"$FAKE_DIR/env" ;;
			esac
		fi
		prev=$a
	done
	# FAKE_RUN_OUT: what the container prints (ping's checks, the init's block log).
	[ -z "${FAKE_RUN_OUT:-}" ] || printf '%s\n' "$FAKE_RUN_OUT"
	exit "${FAKE_RUN_RC:-0}" ;;
esac
EOF
cp "$T/bin/docker" "$T/bin/podman"
# A fake id: the script sees the person FAKE_UID:FAKE_GID (default 1000:1000, a typical first
# user) whoever runs the tests; FAKE_UID=real asks the real id.
real_id=$(command -v id)
cat >"$T/bin/id" <<EOF
#!/bin/sh
[ "\${FAKE_UID:-1000}" != real ] || exec "$real_id" "\$@"
case \$1 in
-u) echo "\${FAKE_UID:-1000}" ;;
-g) echo "\${FAKE_GID:-\${FAKE_UID:-1000}}" ;;
*) exec "$real_id" "\$@" ;;
esac
EOF
# The runner learns the invoking uid and gid, and who the sandbox user is, from cli-sandbox-ctl
# runner: a wrapper of the program asks it for FAKE_UID:FAKE_GID (--uid, --gid), as the fake id
# does. It also keeps every call's arguments, and the credentials command's lines, in
# $T/ctl-args: no key's value may be in them.
real_ctl=${CLI_SANDBOX_CTL:-$repo/build/hostctl/cli-sandbox-ctl}
cat >"$T/bin/ctl" <<EOF
#!/bin/sh
printf '%s\\n' "\$*" >>"$T/ctl-args"
if [ "\$1" = credentials ]; then
	out=\$("$real_ctl" "\$@"); rc=\$?
	printf '%s\\n' "\$out" >>"$T/ctl-args"
	printf '%s\\n' "\$out"
	exit \$rc
fi
[ "\$1" = runner ] && [ "\${FAKE_UID:-1000}" != real ] || exec "$real_ctl" "\$@"
if [ "\$2" = --argv ]; then shift 2; exec "$real_ctl" runner --argv --uid "\${FAKE_UID:-1000}" --gid "\${FAKE_GID:-\${FAKE_UID:-1000}}" "\$@"; fi
exec "$real_ctl" "\$@" --uid "\${FAKE_UID:-1000}" --gid "\${FAKE_GID:-\${FAKE_UID:-1000}}"
EOF
chmod +x "$T/bin/docker" "$T/bin/podman" "$T/bin/id" "$T/bin/ctl"
export CLI_SANDBOX_CTL="$T/bin/ctl"

export HOME="$T/home" CLI_SANDBOX_HOME="$T/conf" FAKE_DIR="$T/fake" GIT_CONFIG_NOSYSTEM=1 XDG_RUNTIME_DIR="$RUN"
# Interactive runs here are without the pinning resolver's sidecar, whose test is tests/image/pinning.sh.
export CLI_SANDBOX_PINNING=false
unset CLI_SANDBOX_ENGINE CLI_SANDBOX_IMAGE CLI_SANDBOX_RELEASE CLI_SANDBOX_RELEASE_OUT CLI_SANDBOX_SIGN_BY CLI_SANDBOX_PUSH CLI_SANDBOX_HOST_ADDRESS CLI_SANDBOX_DOCKER_SOCKET \
	CLI_SANDBOX_ENGINE_ARGS CLI_SANDBOX_ENGINE_GLOBAL_ARGS DOCKER_HOST DOCKER_CONTEXT DOCKER_CONFIG GIT_CONFIG_GLOBAL \
	FAKE_VERSION_RC FAKE_RUN_OUT FAKE_IMAGE_RC FAKE_GATEWAY FAKE_DOCKER_DOWN FAKE_UID FAKE_GID FAKE_RUNNING \
	ANTHROPIC_AUTH_TOKEN CODEX_API_KEY GEMINI_API_KEY GOOGLE_API_KEY \
	CLI_SANDBOX_PIDS_LIMIT CLI_SANDBOX_TMP_SIZE
# The limits that depend on this machine, fixed here so that the exact arguments below do not;
# the section "limits" tests the defaults themselves.
export CLI_SANDBOX_MEMORY=2g CLI_SANDBOX_CPUS=1 CLI_SANDBOX_NOFILE=4096
PATH="$T/bin:$PATH"
FAKE_IMAGES=localhost/cli-sandbox:latest
export PATH FAKE_IMAGES
# docker's daemon, as the runner asks it (cli-sandbox-ctl runner: GET /_ping on its unix socket,
# no client started): a mock that answers as dockerd does and appends "docker-socket" and the
# path to $FAKE_DIR/queries. DOWN: a socket where nothing listens (connect is refused).
cat >"$T/dockerd.py" <<'EOF'
import os, socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.listen(16)
s.settimeout(1)
end = time.time() + 900  # bounded: the whole file runs in about 1.5 minutes
while time.time() < end:
    try:
        c, _ = s.accept()
    except socket.timeout:
        continue
    c.settimeout(5)
    data = b''
    while b'\r\n\r\n' not in data:
        d = c.recv(4096)
        if not d:
            break
        data += d
    words = data.split(b'\r\n', 1)[0].decode('latin-1').split(' ')
    path = words[1] if len(words) > 1 else ''
    with open(os.path.join(os.environ['FAKE_DIR'], 'queries'), 'a') as f:
        f.write('docker-socket\n' + path + '\n')
    ok = path == '/_ping'
    body = b'OK' if ok else b'{"message":"page not found"}\n'
    c.sendall(b'HTTP/1.1 ' + (b'200 OK' if ok else b'404 Not Found') + b'\r\nApi-Version: 1.43\r\n'
              + b'Content-Type: text/plain; charset=utf-8\r\nContent-Length: ' + str(len(body)).encode()
              + b'\r\n\r\n' + body)
    c.close()
EOF
mkdir -p "$FAKE_DIR"
python3 "$T/dockerd.py" "$T/docker.sock" &
listener_pid=$!
i=0
while [ ! -S "$T/docker.sock" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -S "$T/docker.sock" ] || { echo "Bail out! the mock docker daemon did not start"; exit 1; }
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$T/dead.sock" || exit 1
DOWN=unix://$T/dead.sock
DOCKER_HOST=unix://$T/docker.sock
export DOCKER_HOST
# The person's keys, exported in their shell: they must reach the engine by name only.
ANTHROPIC_API_KEY=sk-ant-host-test-secret-value OPENAI_API_KEY=sk-openai-host-test-secret-value
export ANTHROPIC_API_KEY OPENAI_API_KEY

# A workspace whose path has spaces, both quotes, a dollar and a backslash.
WS="$T/my proj 'it''s\" \$HOME \\x"
mkdir -p "$WS" "$T/plain" || exit 1
WS=$(cd -P -- "$WS" && pwd -P)
# Writable by the sandbox user, whoever it is (doctor tests the workspace as that uid).
chmod 777 "$WS" "$T/plain"
git config --global user.name "Ada O'Lovelace"
git config --global user.email ada@example.org

# cs ARG...: run the script with $SH_UNDER_TEST (default sh) in $WS (override with CWD=...), no terminal; sets rc, out in $T/out,
# stderr in $T/err, the engine's arguments in $T/fake/args (absent when the engine did not run).
SH_UNDER_TEST='sh'
# Keys are out by default (the key broker beside the sandbox: tests/broker/run.sh runs it under
# real engines). Most checks here are of the sandbox's own command with the person's keys in
# it, the path --keys-in keeps: cs passes --keys-in unless CS_KEYS_OUT=1.
cs() {
	rm -f "$FAKE_DIR/args" "$FAKE_DIR/queries"
	[ -n "${CS_KEYS_OUT:-}" ] || set -- --keys-in "$@"
	(cd -- "${CWD:-$WS}" && "$SH_UNDER_TEST" "$CS" "$@" </dev/null >"$T/out" 2>"$T/err")
	rc=$?
}
# expect LINE...: the engine's arguments are exactly these lines.
expect() {
	printf '%s\n' "$@" >"$T/expected"
	if [ ! -f "$FAKE_DIR/args" ]; then why "the engine was not run; stderr: $(cat "$T/err")"; return 1; fi
	cmp -s "$T/expected" "$FAKE_DIR/args" && return 0
	why "$(diff "$T/expected" "$FAKE_DIR/args")"
	return 1
}
has_arg() { grep -qxF -- "$1" "$FAKE_DIR/args" 2>/dev/null || { why "no argument '$1' in: $(cat "$FAKE_DIR/args" 2>/dev/null)"; return 1; }; }
lacks_arg() { ! grep -qF -- "$1" "$FAKE_DIR/args" 2>/dev/null || { why "unexpected '$1' in: $(cat "$FAKE_DIR/args")"; return 1; }; }
not_asked() { ! grep -qx -- "$1" "$FAKE_DIR/queries" 2>/dev/null || { why "the engine was asked: $(cat "$FAKE_DIR/queries")"; return 1; }; }
not_run() { [ ! -f "$FAKE_DIR/args" ] || { why "the engine ran: $(cat "$FAKE_DIR/args")"; return 1; }; }
failed_with() { # failed_with WORD: non-zero exit, one line on stderr that mentions WORD
	[ "$rc" -ne 0 ] || { why "exit status 0"; return 1; }
	[ "$(wc -l <"$T/err")" -eq 1 ] || { why "stderr is not one line: $(cat "$T/err")"; return 1; }
	grep -qF -- "$1" "$T/err" || { why "stderr lacks '$1': $(cat "$T/err")"; return 1; }
}
rc_is() { [ "$rc" -eq "$1" ] || { why "exit status $rc, not $1; stderr: $(cat "$T/err")"; return 1; }; }
out_is() { printf '%s\n' "$1" >"$T/expected"; cmp -s "$T/expected" "$T/out" || { why "$(diff "$T/expected" "$T/out")"; return 1; }; }
err_has() { grep -qF -- "$1" "$T/err" || { why "stderr lacks '$1': $(cat "$T/err")"; return 1; }; }

# The limits' arguments (host/cli-sandbox's add_limits), right after run; CAP_SYS_RESOURCE only
# where this machine's processes may hold it (bit 24 of CapBnd).
LIM='--pids-limit
4096
--memory
2048m
--memory-swap
2048m
--cpus
1
--ulimit
nofile=4096:4096
--tmpfs
/tmp:rw,nosuid,nodev,exec,size=512m,mode=1777'
if [ ! -r /proc/self/status ] ||
	awk '/^CapBnd:/ { exit !(index("13579bdfBDF", substr($2, length($2) - 6, 1)) > 0) }' /proc/self/status; then
	LIM="$LIM
--cap-add=SYS_RESOURCE"
fi
COMMON='--rm
-i
--cap-drop=ALL
--cap-add=NET_ADMIN
--cap-add=SETUID
--cap-add=SETGID
--cap-add=SETPCAP
--security-opt=no-new-privileges
-e
CLI_SANDBOX_USER=1000:1000
-v
'"$WS"':/workspace
-w
/workspace'
# podman run by a person (rootless): their uid:gid is the container's node.
COMMON_P=$(printf '%s\n' "$COMMON" | sed '/^-e$/{N;s/^-e\nCLI_SANDBOX_USER=1000:1000$/--userns=keep-id:uid=1000,gid=1000/;}')
GIT_ENV='-e
GIT_AUTHOR_NAME=Ada O'"'"'Lovelace
-e
GIT_COMMITTER_NAME=Ada O'"'"'Lovelace
-e
GIT_AUTHOR_EMAIL=ada@example.org
-e
GIT_COMMITTER_EMAIL=ada@example.org'

# ---------------------------------------------------------------- shellcheck
if command -v shellcheck >/dev/null 2>&1; then
	# -x: host/lib/*.sh are checked with it, in its context (its source directives), so that
	# no library needs a file-wide disable for the variables the script sets.
	sc_out=$(shellcheck -s sh -x "$CS" 2>&1)
	t "shellcheck -s sh -x host/cli-sandbox (and the libraries it sources) finds nothing" [ -z "$sc_out" ]
	t "... and no library of it has a file-wide disable" sh -c "! grep -l '^# shellcheck shell=sh disable' '$repo'/host/lib/*.sh"
	[ -z "$sc_out" ] || printf '%s\n' "$sc_out" | sed 's/^/#   /'
	sc_out=$(shellcheck -s sh "$repo/tests/host/run.sh" 2>&1)
	t "shellcheck -s sh tests/host/run.sh finds nothing" [ -z "$sc_out" ]
	[ -z "$sc_out" ] || printf '%s\n' "$sc_out" | sed 's/^/#   /'
else
	fail "shellcheck is installed (apt-get install shellcheck)"
fi
t "the script is executable" [ -x "$CS" ]

# ---------------------------------------------------------------- help and usage errors
cs --help
t "--help exits 0" rc_is 0
missing=''
for w in --managed --interactive --allow --allow-host-network --endpoint --workspace \
	--docker-socket --engine --image --dry-run --json build doctor endpoints claude codex pi \
	--pids-limit --memory --cpus --nofile --tmp-size CLI_SANDBOX_PIDS_LIMIT CLI_SANDBOX_MEMORY \
	CLI_SANDBOX_CPUS CLI_SANDBOX_NOFILE CLI_SANDBOX_TMP_SIZE \
	CLI_SANDBOX_ENGINE_ARGS CLI_SANDBOX_ENGINE_GLOBAL_ARGS CLI_SANDBOX_HOST_ADDRESS; do
	grep -qF -- "$w" "$T/out" || missing="$missing $w"
done
t "--help lists every option, command and variable" [ -z "$missing" ]
cs --bogus --interactive
t "an unknown option is refused and says options go before the CLI's name" failed_with "before the CLI's name"
t "... and the engine does not run" not_run
cs --interactive frobnicate
t "an unknown command is refused" failed_with "frobnicate"
cs --interactive --cli claude codex
t "two CLIs are refused" failed_with "choose one CLI"
cs --managed http://192.0.2.1:4000 --interactive
t "--managed with --interactive is refused" failed_with "exclude each other"
cs --interactive --workspace
t "an option without its value is refused" failed_with "--workspace needs a value"
cs --interactive --json
t "--json outside doctor is refused" failed_with "doctor only"

# ---------------------------------------------------------------- profiles and CLIs
# The keys travel in the credentials file, mounted read-only, never as -e.
CRED_MOUNT="-v
$RUN/cli-sandbox-credentials.PID/env:/run/cli-sandbox-credentials/env:ro"
CRED_CLAUDE=$CRED_MOUNT CRED_CODEX=$CRED_MOUNT CRED_PI=$CRED_MOUNT
cs --managed http://192.0.2.1:4000/v1
t "managed claude (the default CLI): exact docker arguments" expect docker run "$LIM" "$COMMON" \
	-v "$HOME/.claude:/home/node/.claude" \
	-e CLI_SANDBOX_EGRESS_PROFILE=managed -e TASK_AGENT_MODEL_BASE_URL=http://192.0.2.1:4000/v1 \
	"$CRED_CLAUDE" "$GIT_ENV" localhost/cli-sandbox:latest -- claude
t "the settings folder ~/.claude is created" [ -d "$HOME/.claude" ]

# claude keeps .claude.json in CLAUDE_CONFIG_DIR (~/.claude), so ~/.claude.json is not mounted.
: >"$HOME/.claude.json"
cs --engine podman --managed http://192.0.2.1:4000 claude -p "it's \"quoted\"" "\$HOME" 'two
lines'
t "managed claude with CLI args (no --), ~/.claude.json left out: exact podman arguments" expect podman run "$LIM" "$COMMON_P" \
	-v "$HOME/.claude:/home/node/.claude" \
	-e CLI_SANDBOX_EGRESS_PROFILE=managed -e TASK_AGENT_MODEL_BASE_URL=http://192.0.2.1:4000 \
	"$CRED_CLAUDE" "$GIT_ENV" localhost/cli-sandbox:latest -- claude -p "it's \"quoted\"" "\$HOME" 'two
lines'
rm -f "$HOME/.claude.json"
cs --managed http://192.0.2.1:4000 claude -- -p hi
t "a -- right after the CLI's name is dropped" has_arg -p
t "... the CLI gets exactly its arguments" [ "$(tail -n 3 "$FAKE_DIR/args" | tr '\n' ' ')" = "claude -p hi " ]
cs --managed http://192.0.2.1:4000 -- -p hi
t "-- without a CLI's name: the default CLI gets the rest" [ "$(tail -n 3 "$FAKE_DIR/args" | tr '\n' ' ')" = "claude -p hi " ]
cs --managed http://192.0.2.1:4000 pi -p "hello" --managed x --interactive
t "pi -p hello: everything after the name is pi's, options included" \
	[ "$(tail -n 6 "$FAKE_DIR/args" | tr '\n' ' ')" = "pi -p hello --managed x --interactive " ]
cs --managed http://192.0.2.1:4000 codex exec "fix the test"
t "codex exec \"fix the test\" without --" [ "$(tail -n 3 "$FAKE_DIR/args" | tr '\n' ' ')" = "codex exec fix the test " ]

cs --interactive --allow api.example.com --allow 198.51.100.7:8443 --allow-host-network codex
t "interactive codex with --allow and --allow-host-network: exact arguments" expect docker run "$LIM" "$COMMON" \
	-v "$HOME/.codex:/home/node/.codex" \
	-e CLI_SANDBOX_EGRESS_PROFILE=interactive -e CLI_SANDBOX_ALLOW=api.example.com,198.51.100.7:8443 \
	-e CLI_SANDBOX_ALLOW_HOST_NETWORK=true "$CRED_CODEX" "$GIT_ENV" localhost/cli-sandbox:latest -- codex
t "the settings folder ~/.codex is created" [ -d "$HOME/.codex" ]

cs --interactive --image=my/img:1 --managed=http://192.0.2.9 pi
t "--managed=URL is read as --managed URL (and clashes with --interactive)" failed_with "exclude each other"
cs --image=my/img:1 --interactive --endpoint=none pi
t "--endpoint with an unknown name is refused" failed_with "no endpoint named 'none'"
cs --image=my/img:1 --interactive pi
t "interactive pi with --image=NAME: exact arguments (no model URL; pi's providers' keys)" expect docker run "$LIM" "$COMMON" \
	-v "$HOME/.pi:/home/node/.pi" -e CLI_SANDBOX_EGRESS_PROFILE=interactive \
	"$CRED_PI" "$GIT_ENV" my/img:1 -- pi
t "the settings folder ~/.pi is created" [ -d "$HOME/.pi" ]

CLI_SANDBOX_IMAGE=env/img CLI_SANDBOX_ENGINE=podman cs --interactive
t "CLI_SANDBOX_IMAGE and CLI_SANDBOX_ENGINE are honoured" expect podman run "$LIM" "$COMMON_P" \
	-v "$HOME/.claude:/home/node/.claude" -e CLI_SANDBOX_EGRESS_PROFILE=interactive \
	"$CRED_CLAUDE" "$GIT_ENV" env/img -- claude
cs --managed http://192.0.2.1:4000 --allow-userns codex
t "--allow-userns passes CLI_SANDBOX_ALLOW_USERNS=true" has_arg CLI_SANDBOX_ALLOW_USERNS=true
cs --managed http://192.0.2.1:4000 codex
t "... and without it, nothing" lacks_arg CLI_SANDBOX_ALLOW_USERNS

cs --managed http://192.0.2.1:4000 --allow x.example.com
t "--allow in the managed profile is refused" failed_with "--allow needs --interactive"
cs --allow-host-network --managed http://192.0.2.1:4000
t "--allow-host-network in the managed profile is refused" failed_with "needs --interactive"
t "... and the engine does not run" not_run
cs claude
t "managed without any URL is refused with the fix" failed_with "endpoints add NAME URL"
t "... and the engine does not run" not_run
cs --engine lxc --interactive
t "an unknown engine is refused" failed_with "unknown engine 'lxc'"

mv "$HOME/.gitconfig" "$T/gitconfig"
cs --interactive
t "no git identity configured: no GIT_* variables" lacks_arg GIT_
mv "$T/gitconfig" "$HOME/.gitconfig"
(cd "$T/plain" && git init -q . && git config user.name "Local Name")
CWD=$T/plain cs --interactive
t "the workspace's own git user.name wins" has_arg "GIT_AUTHOR_NAME=Local Name"
t "... and the global e-mail is still passed" has_arg "GIT_COMMITTER_EMAIL=ada@example.org"
if [ "$("$real_id" -u)" = 0 ]; then
	# A workspace repository owned by another user: git reads none of its settings
	# (safe.directory), the global ones still count, and the run goes on.
	mkdir -p "$T/theirs" && (cd "$T/theirs" && git init -q . && git config user.name "Their Name") && chown -R 65534 "$T/theirs"
	CWD=$T/theirs cs --interactive
	t "a workspace repository owned by another user: the global git user.name, not its own" \
		sh -c "grep -qxF \"GIT_AUTHOR_NAME=Ada O'Lovelace\" '$FAKE_DIR/args' && ! grep -q 'Their Name' '$FAKE_DIR/args'"
fi

CLI_SANDBOX_ENGINE_ARGS='--runtime-flag --ulimit nofile=1024:1024' \
	CLI_SANDBOX_ENGINE_GLOBAL_ARGS='--runtime runc' cs --engine podman --interactive
t "CLI_SANDBOX_ENGINE_GLOBAL_ARGS go before run, CLI_SANDBOX_ENGINE_ARGS right after it" \
	expect podman --runtime runc run "$LIM" --runtime-flag --ulimit nofile=1024:1024 "$COMMON_P" \
	-v "$HOME/.claude:/home/node/.claude" -e CLI_SANDBOX_EGRESS_PROFILE=interactive \
	"$CRED_CLAUDE" "$GIT_ENV" localhost/cli-sandbox:latest -- claude

# ---------------------------------------------------------------- terminal
cs --interactive
t "no terminal: -i but no -t" sh -c "! grep -qx -- -t '$FAKE_DIR/args'"
t "no terminal: no COLUMNS/LINES" lacks_arg "COLUMNS="
if command -v script >/dev/null 2>&1; then
	rm -f "$FAKE_DIR/args"
	(cd "$T/plain" && script -qec "stty rows 31 cols 101; sh '$CS' --interactive" /dev/null \
		</dev/null >"$T/out" 2>&1)
	t "on a terminal: -t" has_arg "-t"
	t "on a terminal: COLUMNS from stty size" has_arg "COLUMNS=101"
	t "on a terminal: LINES from stty size" has_arg "LINES=31"
else
	printf '# SKIP terminal checks: script (util-linux) is not installed\n'
fi

# ---------------------------------------------------------------- workspace refusals
cs --interactive --workspace /
t "workspace / is refused" failed_with "refusing to mount /"
t "... and the engine does not run" not_run
CWD=/ cs --interactive
t "running from / is refused" failed_with "refusing to mount /"
CWD=$HOME cs --interactive
t "the home directory as workspace is refused" failed_with "home directory"
t "... and the engine does not run" not_run
ln -s "$HOME" "$T/homelink"
cs --interactive --workspace "$T/homelink/."
t "the home directory through a symlink is refused (canonical paths)" failed_with "home directory"
cs --interactive --workspace "$T"
t "a directory that contains the home directory is refused" failed_with "contains your home directory"
cs --interactive --workspace "$T/nonexistent"
t "a missing workspace is refused" failed_with "not an existing directory"
mkdir "$T/a:b"
cs --interactive --workspace "$T/a:b"
t "a workspace with ':' is refused (-v cannot mount it)" failed_with "contains ':'"
cs --interactive --workspace "$WS/"
t "--workspace with spaces and quotes reaches -v intact" has_arg "$WS:/workspace"

# ---------------------------------------------------------------- named endpoints
cs endpoints list
t "endpoints list with none says how to add one" grep -qF "endpoints add NAME URL" "$T/out"
cs endpoints add ollama http://localhost:11434 --no-probe
t "endpoints add succeeds" rc_is 0
cs endpoints add gw http://192.0.2.1:4000/v1 --no-probe
cs endpoints add ollama http://127.0.0.1:11434/api --no-probe
cat "$CLI_SANDBOX_HOME/endpoints" >"$T/out"
t "the endpoints file holds one 'NAME URL' per line; add replaces a name" \
	out_is "$(printf 'gw http://192.0.2.1:4000/v1\nollama http://127.0.0.1:11434/api')"
for bad in 'bad name' 'a/b' '-x' '' 'é' '.hidden' 'x;y'; do
	cs endpoints add "$bad" http://192.0.2.1:1 --no-probe
	t "endpoint name '$bad' is refused" failed_with "bad endpoint name"
done
cs endpoints add ok_name-1.2 'http://192.0.2.1:1 x' --no-probe
t "a URL with a space is refused" failed_with "bad URL"
cs endpoints add ok_name-1.2 http://192.0.2.3:1 --no-probe
t "a name with letters, digits, - _ . is accepted" rc_is 0
cs endpoints use nope
t "endpoints use of an unknown name is refused" failed_with "no endpoint named 'nope'"
cs endpoints use gw
t "endpoints use succeeds" rc_is 0
cs endpoints list
t "endpoints list marks the selected one" \
	out_is "$(printf '* gw http://192.0.2.1:4000/v1\n  ollama http://127.0.0.1:11434/api\n  ok_name-1.2 http://192.0.2.3:1')"
cs claude
t "managed without --managed URL takes the selected endpoint" has_arg "TASK_AGENT_MODEL_BASE_URL=http://192.0.2.1:4000/v1"
cs --endpoint ok_name-1.2
t "--endpoint NAME overrides the selection" has_arg "TASK_AGENT_MODEL_BASE_URL=http://192.0.2.3:1"
cs --managed http://192.0.2.4:5 --endpoint ok_name-1.2
t "--managed URL overrides --endpoint" has_arg "TASK_AGENT_MODEL_BASE_URL=http://192.0.2.4:5"
cs --interactive
t "interactive ignores the selection (the CLI keeps its own provider)" lacks_arg "TASK_AGENT_MODEL_BASE_URL"
cs --interactive --endpoint gw
t "interactive with --endpoint NAME passes its URL" has_arg "TASK_AGENT_MODEL_BASE_URL=http://192.0.2.1:4000/v1"
cs endpoints rm nope
t "endpoints rm of an unknown name is refused" failed_with "no endpoint named 'nope'"
cs endpoints rm gw
t "endpoints rm succeeds" rc_is 0
cs endpoints list
t "endpoints rm removes it and clears the selection" \
	out_is "$(printf '  ollama http://127.0.0.1:11434/api\n  ok_name-1.2 http://192.0.2.3:1')"
t "... the current file is gone" [ ! -e "$CLI_SANDBOX_HOME/current" ]
cs claude
t "managed after removing the selected endpoint is refused" failed_with "--managed URL"
cs endpoints frob
t "an unknown endpoints command is refused" failed_with "unknown endpoints command"

# ---------------------------------------------------------------- the host-endpoint rewrite
FAKE_GATEWAY=172.17.0.1 cs --managed http://localhost:11434
t "docker: localhost:11434 becomes the bridge gateway" has_arg "TASK_AGENT_MODEL_BASE_URL=http://172.17.0.1:11434"
t "docker: the gateway comes from 'network inspect bridge'" grep -qx bridge "$FAKE_DIR/queries"
FAKE_GATEWAY='fd00::1 172.17.0.1' cs --managed http://127.0.0.1:11434/v1/
t "docker: 127.0.0.1 with a path, IPv6 gateway skipped" has_arg "TASK_AGENT_MODEL_BASE_URL=http://172.17.0.1:11434/v1/"
FAKE_GATEWAY=172.17.0.1 cs --managed https://host
t "docker: the word host without a port" has_arg "TASK_AGENT_MODEL_BASE_URL=https://172.17.0.1"
cs endpoints use ollama
FAKE_GATEWAY=172.17.0.1 cs
t "a selected endpoint on localhost is rewritten too" has_arg "TASK_AGENT_MODEL_BASE_URL=http://172.17.0.1:11434/api"
FAKE_GATEWAY=172.17.0.1 cs --interactive --endpoint ollama
t "interactive: a host endpoint is rewritten too" has_arg "TASK_AGENT_MODEL_BASE_URL=http://172.17.0.1:11434/api"
FAKE_GATEWAY=172.17.0.1 cs --managed http://localhost.example:11434
t "other host names are left alone" has_arg "TASK_AGENT_MODEL_BASE_URL=http://localhost.example:11434"
t "... and the engine is not asked for a gateway" not_asked network
FAKE_GATEWAY=172.17.0.1 CLI_SANDBOX_HOST_ADDRESS=192.0.2.77 cs --managed http://localhost:11434
t "CLI_SANDBOX_HOST_ADDRESS overrides the discovery" has_arg "TASK_AGENT_MODEL_BASE_URL=http://192.0.2.77:11434"
cs --managed http://localhost:11434
t "no gateway known: refused with the fix" failed_with "CLI_SANDBOX_HOST_ADDRESS"
t "... and the engine does not run" not_run
FAKE_UID=0 FAKE_GATEWAY=10.88.0.1 cs --engine podman --managed http://localhost:11434
t "podman (rootful): localhost becomes the podman network's gateway" has_arg "TASK_AGENT_MODEL_BASE_URL=http://10.88.0.1:11434"
t "podman: the gateway comes from 'network inspect podman'" grep -qx podman "$FAKE_DIR/queries"
FAKE_GATEWAY=10.88.0.1 cs --engine podman --managed http://localhost:11434
t "podman (rootless): refused, asking for CLI_SANDBOX_HOST_ADDRESS" failed_with "CLI_SANDBOX_HOST_ADDRESS"

# ---------------------------------------------------------------- --docker-socket
: >"$T/sock"
sock_gid=$("$real_id" -g)
if [ "$("$real_id" -u)" = 0 ]; then chgrp 4242 "$T/sock" && sock_gid=4242; fi
CLI_SANDBOX_DOCKER_SOCKET=$T/sock cs --interactive --docker-socket
t "--docker-socket mounts the socket at /var/run/docker.sock" has_arg "$T/sock:/var/run/docker.sock"
t "--docker-socket adds the socket's group" expect docker run "$LIM" "$COMMON" \
	-v "$HOME/.claude:/home/node/.claude" -v "$T/sock:/var/run/docker.sock" --group-add "$sock_gid" \
	-e CLI_SANDBOX_EGRESS_PROFILE=interactive "$CRED_CLAUDE" "$GIT_ENV" localhost/cli-sandbox:latest -- claude
t "--docker-socket warns that the agent controls the host's engine" err_has "full control of the host's docker"
mkdir -p "$T/nostat"
printf '#!/bin/sh\nexit 1\n' >"$T/nostat/stat" && chmod +x "$T/nostat/stat"
PATH="$T/nostat:$PATH" CLI_SANDBOX_DOCKER_SOCKET=$T/sock cs --interactive --docker-socket
t "the group is the program's (stat(2)): a stat(1) that fails does not matter" has_arg "$sock_gid"
if [ "$("$real_id" -u)" = 0 ]; then
	chgrp 0 "$T/sock"
	CLI_SANDBOX_DOCKER_SOCKET=$T/sock cs --interactive --docker-socket
	t "a socket of group 0: warned that the sandbox drops that group" err_has "belongs to group 0"
	chgrp "$sock_gid" "$T/sock"
fi
CLI_SANDBOX_DOCKER_SOCKET=$T/sock cs --interactive --docker-socket
t "a socket of another group: no group-0 warning" [ "$(grep -c 'group 0' "$T/err")" -eq 0 ]
CLI_SANDBOX_DOCKER_SOCKET=$T/nosock cs --interactive --docker-socket
t "a missing socket is refused" failed_with "does not exist"
t "... and the engine does not run" not_run
cs --interactive
t "no --docker-socket: no socket, no group" lacks_arg "docker.sock"
DOCKER_HOST=tcp://192.0.2.1:2375 cs --interactive --docker-socket
t "DOCKER_HOST that is not a unix socket is refused" failed_with "not a unix socket"
DOCKER_HOST=unix://$T/sock cs --engine docker --interactive --docker-socket
t "DOCKER_HOST=unix://PATH is the socket" has_arg "$T/sock:/var/run/docker.sock"

# ---------------------------------------------------------------- --dry-run
cs --dry-run --managed http://192.0.2.1:4000 codex "it's" "a \"b\" \$c \\d" 'two
lines'
cp "$T/out" "$T/dry"
t "--dry-run does not run the engine" not_run
t "--dry-run: first line is 'docker \\'" [ "$(sed -n 1p "$T/dry")" = "docker \\" ]
t "--dry-run: the next lines are single-quoted, e.g. \"  'run' \\\"" [ "$(sed -n 2p "$T/dry")" = "  'run' \\" ]
t "--dry-run: the last line has no backslash" [ "$(tail -n 1 "$T/dry")" = "lines'" ]
(cd "$T/plain" && sh <"$T/dry")
cp "$FAKE_DIR/args" "$T/dry-args"
cs --managed http://192.0.2.1:4000 codex "it's" "a \"b\" \$c \\d" 'two
lines'
t "--dry-run output pasted into sh runs the engine with exactly the same arguments" \
	cmp -s "$T/dry-args" "$FAKE_DIR/args"
CLI_SANDBOX_ENGINE_GLOBAL_ARGS='--runtime runc' cs --engine podman --dry-run --interactive
t "--dry-run shows the global engine arguments before run" \
	[ "$(sed -n 1,3p "$T/out")" = "$(printf "podman \\\\\n  '--runtime' \\\\\n  'runc' \\\\")" ]

# ---------------------------------------------------------------- a CLI's own image
# image_is NAME: the engine ran NAME (the argument right before --).
image_is() {
	_got=$(awk 'prev != "" && $0 == "--" { print prev; exit } { prev = $0 }' "$FAKE_DIR/args" 2>/dev/null)
	[ "$_got" = "$1" ] || { why "the image run is '$_got', not '$1'"; return 1; }
}
FAKE_IMAGES='localhost/cli-sandbox:latest localhost/cli-sandbox:codex' cs --interactive codex
t "codex with localhost/cli-sandbox:codex present: its own image runs" image_is localhost/cli-sandbox:codex
t "... found with 'image inspect localhost/cli-sandbox:codex'" grep -qx localhost/cli-sandbox:codex "$FAKE_DIR/queries"
FAKE_IMAGES='localhost/cli-sandbox:latest localhost/cli-sandbox:codex' cs --interactive claude
t "claude without its own image: the all-in-one runs" image_is localhost/cli-sandbox:latest
FAKE_IMAGES='localhost/cli-sandbox:claude' cs --managed http://192.0.2.1:4000
t "the default CLI (claude) with only its own image: exact arguments" expect docker run "$LIM" "$COMMON" \
	-v "$HOME/.claude:/home/node/.claude" \
	-e CLI_SANDBOX_EGRESS_PROFILE=managed -e TASK_AGENT_MODEL_BASE_URL=http://192.0.2.1:4000 \
	"$CRED_CLAUDE" "$GIT_ENV" localhost/cli-sandbox:claude -- claude
FAKE_IMAGES='localhost/cli-sandbox:pi' cs --engine podman --interactive pi
t "podman: pi's own image runs" image_is localhost/cli-sandbox:pi
FAKE_IMAGES='my/img:pi' cs --image my/img --interactive pi
t "--image REPOSITORY (no tag): REPOSITORY:pi runs when present" image_is my/img:pi
FAKE_IMAGES='my/img:pi' CLI_SANDBOX_IMAGE=my/img:latest cs --interactive pi
t "CLI_SANDBOX_IMAGE=REPOSITORY:latest: REPOSITORY:pi runs when present" image_is my/img:pi
FAKE_IMAGES='reg.example:5000/team/cs:codex' cs --image reg.example:5000/team/cs --interactive codex
t "a registry host:port is not taken for a tag" image_is reg.example:5000/team/cs:codex
FAKE_IMAGES='my/img:1 my/img:pi' cs --image my/img:1 --interactive pi
t "--image with another tag runs exactly that image" image_is my/img:1
t "... without asking the engine for another" not_asked image
cs --image 'my/img@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef' --interactive pi
t "--image with a digest runs exactly that image" image_is 'my/img@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef'
FAKE_IMAGES='localhost/cli-sandbox:codex' cs --dry-run --interactive codex
t "--dry-run shows the CLI's own image" grep -qxF "  'localhost/cli-sandbox:codex' \\" "$T/out"

# ---------------------------------------------------------------- build
# The engine's build first (CLI_SANDBOX_RELEASE=0: that alone); the release steps after it below.
export CLI_SANDBOX_RELEASE=0
cs build --build-arg A=1 --no-cache
t "build runs ENGINE build -t IMAGE ARGS REPO" expect docker build -t localhost/cli-sandbox:latest --build-arg A=1 --no-cache "$repo"
cs codex build --no-cache
t "CLI build: the codex target, tagged localhost/cli-sandbox:codex" expect docker build -t localhost/cli-sandbox:codex --target codex --no-cache "$repo"
cs --image my/img:1 pi build
t "CLI build with --image NAME:TAG: that exact name" expect docker build -t my/img:1 --target pi "$repo"
cs --engine podman --image my/img claude build
t "CLI build with --image REPOSITORY: REPOSITORY:claude" expect podman build -t my/img:claude --target claude "$repo"
ln -s "$CS" "$T/bin/cli-sandbox-link"
rm -f "$FAKE_DIR/args"
(cd "$T/plain" && "$T/bin/cli-sandbox-link" --engine podman --image x/y build >/dev/null 2>&1)
t "build through a symlink still finds the repository" expect podman build -t x/y "$repo"
cs --dry-run build
t "build --dry-run prints the command" out_is "$(printf "docker \\\\\n  'build' \\\\\n  '-t' \\\\\n  'localhost/cli-sandbox:latest' \\\\\n  '%s'" "$repo")"
unset CLI_SANDBOX_RELEASE
# Then image/release/release.sh on the image built, with the same engine (docs/release.md).
cs --dry-run codex build
t "build --dry-run: then the release step, on the image built, with its engine" out_is "$(printf "docker \\\\\n  'build' \\\\\n  '-t' \\\\\n  'localhost/cli-sandbox:codex' \\\\\n  '--target' \\\\\n  'codex' \\\\\n  '%s'\nsh \\\\\n  '%s/image/release/release.sh' \\\\\n  '--engine' \\\\\n  'docker' \\\\\n  'localhost/cli-sandbox:codex'" "$repo" "$repo")"
# The fake engine builds nothing, so the release step finds no image: it ran, and the build fails.
export CLI_SANDBOX_RELEASE_OUT="$T/release"
cs codex build
t "build runs image/release/release.sh after the engine's build, and fails with it" [ "$rc" -ne 0 ]
t "its message names the image built and the engine" err_has "image/release/release.sh: cannot read the file system of localhost/cli-sandbox:codex (docker)"
t "and it signs with the project's release key, made in CLI_SANDBOX_RELEASE_OUT/signing" test -s "$T/release/signing/release-key.asc"
unset CLI_SANDBOX_RELEASE_OUT

# ---------------------------------------------------------------- engine selection
# $T/min: the POSIX tools only (no engine, no nc, curl or wget); $T/only-*: one fake engine.
mkdir -p "$T/min" "$T/only-podman" "$T/only-docker"
for tool in sh cat awk mkdir mv rm id ls git dirname readlink tail grep stty sed od rmdir find chmod; do
	p=$(command -v "$tool") && ln -s "$p" "$T/min/$tool"
done
cp "$T/bin/podman" "$T/only-podman/" && cp "$T/bin/docker" "$T/only-docker/"
PATH="$T/min" cs --interactive
t "no engine installed: one line naming both" failed_with "docker is not installed and podman is not installed"
PATH="$T/only-podman:$T/min" cs --interactive
t "only podman installed: podman is used" has_arg podman
PATH="$T/only-podman:$T/min" cs --interactive --engine docker
t "--engine docker when docker is not installed: refused" failed_with "docker is not installed"
PATH="$T/only-podman:$T/min" cs --interactive --engine docker --dry-run
t "... but --dry-run still prints the command" [ "$(sed -n 1p "$T/out")" = "docker \\" ]
cs --interactive
t "both installed: docker is used" has_arg docker

# ---------------------------------------------------------------- doctor
json_ok() { python3 -m json.tool "$T/out" >/dev/null 2>&1 || { why "not JSON: $(cat "$T/out")"; return 1; }; }
# jq_is EXPR VALUE: a python expression over the parsed object j (checks by name: c["engine"];
# the workspace path: ws) prints VALUE.
jq_is() {
	_v=$(python3 -c 'import json,sys
j = json.load(open(sys.argv[1])); c = {x["name"]: x for x in j["checks"]}; ws = sys.argv[3]
print(eval(sys.argv[2]))' "$T/out" "$1" "$WS" 2>&1)
	[ "$_v" = "$2" ] || { why "$1 is '$_v', not '$2'; output: $(cat "$T/out")"; return 1; }
}
# A TCP listener on 127.0.0.1 that ends by itself after 120 s.
python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(16); s.settimeout(1)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
end = time.time() + 120
while time.time() < end:
    try: s.accept()[0].close()
    except socket.timeout: pass' "$T/port" &
listener_pid="$listener_pid $!"
i=0
while [ ! -s "$T/port" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
port=$(cat "$T/port" 2>/dev/null)
t "the test listener started" [ -n "$port" ]
closed=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

# Endpoints on 127.0.0.1 are host endpoints: the fake gateway keeps every test on loopback.
FAKE_GATEWAY=127.0.0.1
export FAKE_GATEWAY
cs doctor --json --managed "http://127.0.0.1:$port/v1"
t "doctor --json, all good: exit 0" rc_is 0
t "doctor --json, all good: valid JSON" json_ok
t "doctor --json, all good: ok is true" jq_is 'j["ok"]' True
t "doctor --json: checks engine, image, endpoint, credential, workspace, ownership, limits" jq_is '[x["name"] for x in j["checks"]]' "['engine', 'image', 'endpoint', 'credential', 'workspace', 'ownership', 'limits']"
t "doctor --json: the workspace detail survives quotes and backslashes" jq_is 'c["workspace"]["detail"].startswith(ws + " is writable by the sandbox user")' True
FAKE_IMAGE_RC=1 cs doctor --json --managed "http://127.0.0.1:$port"
t "doctor --json without the image: exit non-zero" [ "$rc" -ne 0 ]
t "doctor --json without the image: valid JSON" json_ok
t "doctor --json without the image: ok is false" jq_is 'j["ok"]' False
t "doctor --json without the image: the image check fails" jq_is 'c["image"]["ok"]' False
t "doctor --json without the image: its fix is to build" jq_is '"cli-sandbox build" in c["image"]["fix"]' True
t "doctor --json without the image: the other checks pass" jq_is '[c[k]["ok"] for k in ("engine", "endpoint", "workspace")]' "[True, True, True]"
t "doctor asked the engine about the image" grep -qx localhost/cli-sandbox:latest "$FAKE_DIR/queries"
FAKE_IMAGE_RC=1 cs doctor --managed "http://127.0.0.1:$port"
t "doctor (text) without the image: exit non-zero" [ "$rc" -ne 0 ]
t "doctor (text): the failure and its fix are printed" grep -q '^FAIL image: .*' "$T/out"
t "doctor (text): a 'fix:' line follows" grep -q '^ *fix: build it: host/cli-sandbox build' "$T/out"
t "doctor (text): passing checks say ok" grep -q '^ok   engine: docker answers' "$T/out"
FAKE_IMAGES=localhost/cli-sandbox:codex cs doctor codex --json --managed "http://127.0.0.1:$port"
t "doctor for codex with only codex's own image: the image check passes and names it" \
	jq_is '(c["image"]["ok"], c["image"]["detail"])' "(True, \"localhost/cli-sandbox:codex is present (codex's own image)\")"
FAKE_IMAGES=localhost/cli-sandbox:codex cs doctor --json --managed "http://127.0.0.1:$port"
t "doctor for claude with only codex's own image: the image check fails" jq_is 'c["image"]["ok"]' False
FAKE_VERSION_RC=1 cs doctor --json --managed "http://127.0.0.1:$port"
t "doctor: an engine that does not answer fails engine and image" jq_is '(j["ok"], c["engine"]["ok"], c["image"]["ok"])' "(False, False, False)"
cs doctor --json --managed "http://127.0.0.1:$closed"
t "doctor: a closed endpoint port fails the endpoint check" jq_is '(j["ok"], c["endpoint"]["ok"])' "(False, False)"
cs endpoints rm ollama
cs doctor --json
t "doctor, managed without an endpoint: endpoint fails with the fix" jq_is '(c["endpoint"]["ok"], "endpoints add" in c["endpoint"]["fix"])' "(False, True)"
cs doctor --json --interactive
t "doctor, interactive without an endpoint: endpoint is fine" jq_is 'c["endpoint"]["ok"]' True
CWD=$HOME cs doctor --json --interactive
t "doctor in the home directory: the workspace check fails" jq_is '(j["ok"], c["workspace"]["ok"])' "(False, False)"
cs endpoints add local "http://localhost:$port" --no-probe
FAKE_GATEWAY=127.0.0.1 cs doctor --json --endpoint local
t "doctor: a host endpoint is tested as given and at the gateway address" jq_is '(c["endpoint"]["ok"], "containers use http://127.0.0.1:" in c["endpoint"]["detail"])' "(True, True)"
# The kernel says which addresses are this host's (cli-sandbox-ctl binds there): all of 127/8.
FAKE_GATEWAY=127.0.0.2 cs doctor --json --endpoint local
t "doctor: a host server not listening where containers connect fails with the fix" \
	jq_is '(c["endpoint"]["ok"], "listen on 127.0.0.2" in c["endpoint"]["fix"])' "(False, True)"
FAKE_GATEWAY=192.0.2.3 cs doctor --json --endpoint local
t "doctor: a gateway address not up on this host is not tested" jq_is '(c["endpoint"]["ok"], "not tested" in c["endpoint"]["detail"])' "(True, True)"
# The TCP test is cli-sandbox-ctl's own connect: no nc, curl or wget needed.
PATH="$T/only-docker:$T/min" cs doctor --json --managed "http://127.0.0.1:$port"
t "doctor without nc, curl or wget: an open port is reachable" jq_is 'c["endpoint"]["ok"]' True
PATH="$T/only-docker:$T/min" cs doctor --json --managed "http://127.0.0.1:$closed"
t "doctor without nc, curl or wget: a closed port is not" jq_is 'c["endpoint"]["ok"]' False
PATH="$T/min" cs doctor --json --interactive
t "doctor with no engine at all: reported, not a crash" jq_is '(j["ok"], c["engine"]["ok"])' "(False, False)"
unset FAKE_GATEWAY

# ---------------------------------------------------------------- credentials
KEY_A=$ANTHROPIC_API_KEY KEY_O=$OPENAI_API_KEY
# no_key_anywhere FILE...: neither key's value is in the files.
no_key_anywhere() {
	for _f in "$@"; do
		! grep -qF -e "$KEY_A" -e "$KEY_O" -e sk-host-key-env-secret "$_f" 2>/dev/null || { why "a key's value is in $_f"; return 1; }
	done
}
env_is() { grep -qxF -- "$1" "$FAKE_DIR/env" 2>/dev/null || { why "the engine's environment lacks '$1': $(sed 's/=.*/=.../' "$FAKE_DIR/env" 2>/dev/null)"; return 1; }; }
# cred_file LINE...: the credentials file held exactly these lines while the engine ran.
cred_file() {
	printf '%s\n' "$@" >"$T/cred-expected"
	cmp -s "$T/cred-expected" "$FAKE_DIR/credfile" 2>/dev/null && return 0
	why "the credentials file held: $(sed 's/=.*/=.../' "$FAKE_DIR/credfile" 2>/dev/null)"
	return 1
}
# cred_gone: the run's credentials directory no longer exists, and no other is left in $RUN.
cred_gone() {
	_p=$(cat "$FAKE_DIR/credpath" 2>/dev/null) || { why "no credentials file was mounted"; return 1; }
	[ ! -e "${_p%/*}" ] || { why "${_p%/*} is still there"; return 1; }
	[ -z "$(ls -A "$RUN")" ] || { why "left in $RUN: $(ls -A "$RUN")"; return 1; }
}
cs --managed http://192.0.2.1:4000 claude
t "claude: no -e ANTHROPIC_API_KEY (the engine would keep its value in inspect's Config.Env)" lacks_arg ANTHROPIC_API_KEY
t "... the credentials file is mounted read-only at /run/cli-sandbox-credentials/env, from \$XDG_RUNTIME_DIR" \
	has_arg "$RUN/cli-sandbox-credentials.PID/env:/run/cli-sandbox-credentials/env:ro"
t "... while the engine ran it held the key, NAME=VALUE" cred_file "ANTHROPIC_API_KEY=$KEY_A"
t "... file 644 (the person is not root: the container's root must read it without DAC_OVERRIDE), directory 700" \
	sh -c "[ \"\$(cat '$FAKE_DIR/credmode')\" = '644 700 ' ] || { cat '$FAKE_DIR/credmode' >'$T/why'; exit 1; }"
t "... the directory is gone after the run" cred_gone
t "... and the value is in no argument" no_key_anywhere "$FAKE_DIR/args"
FAKE_UID=real cs --managed http://192.0.2.1:4000 claude
if [ "$("$real_id" -u)" = 0 ]; then
	t "as root: the file is 600 (root in the container owns it)" [ "$(cat "$FAKE_DIR/credmode")" = "600 700 " ]
fi
t "... and gone after the run" cred_gone
cs --dry-run --managed http://192.0.2.1:4000 pi
t "--dry-run: no key's value in its output" no_key_anywhere "$T/out"
t "--dry-run: the credentials mount with the path a run would use" grep -qF "'$RUN/cli-sandbox-credentials." "$T/out"
t "--dry-run: no -e for pi's provider variables" sh -c "! grep -qF \"'OPENAI_API_KEY'\" '$T/out' && ! grep -qF \"'ANTHROPIC_API_KEY'\" '$T/out'"
t "--dry-run: creates no credentials directory" [ -z "$(ls -A "$RUN")" ]
cs --managed http://192.0.2.1:4000 pi
t "pi: both provider variables in the file" cred_file "ANTHROPIC_API_KEY=$KEY_A" "OPENAI_API_KEY=$KEY_O"
ANTHROPIC_API_KEY='' ANTHROPIC_AUTH_TOKEN=tok-secret cs --managed http://192.0.2.1:4000 claude
t "claude with ANTHROPIC_AUTH_TOKEN only: that one in the file, an empty ANTHROPIC_API_KEY not" cred_file ANTHROPIC_AUTH_TOKEN=tok-secret
OPENAI_API_KEY='' CODEX_API_KEY=cx-secret cs --managed http://192.0.2.1:4000 codex
t "codex with CODEX_API_KEY only: in the file" cred_file CODEX_API_KEY=cx-secret
ANTHROPIC_API_KEY='' OPENAI_API_KEY='' GOOGLE_API_KEY=g-secret cs --managed http://192.0.2.1:4000 gemini
t "gemini: GOOGLE_API_KEY in the file, state in ~/.gemini" sh -c "grep -qxF GOOGLE_API_KEY=g-secret '$FAKE_DIR/credfile' && grep -qxF '$HOME/.gemini:/home/node/.gemini' '$FAKE_DIR/args'"
# A value with quotes, a dollar, backslashes and spaces reaches the file byte for byte.
ANTHROPIC_API_KEY="a'b\"c \$HOME \\n\\" cs --managed http://192.0.2.1:4000 claude
t "a value with quotes, \$, backslashes: byte for byte in the file" cred_file "ANTHROPIC_API_KEY=a'b\"c \$HOME \\n\\"
# A value with a newline cannot be one line of the file: by name, as before.
ANTHROPIC_API_KEY="two
lines" cs --managed http://192.0.2.1:4000 claude
t "a value with a newline: passed by name instead (-e NAME)" sh -c "grep -qx ANTHROPIC_API_KEY '$FAKE_DIR/args' && [ ! -e '$FAKE_DIR/credfile' ]"
# No memory-backed directory (XDG_RUNTIME_DIR on disk, and a disk directory bind-mounted over
# /dev/shm in a mount namespace of the script's own): by name, with a warning naming the risk.
mkdir -p "$T/disk-run" "$T/disk-shm"
chmod 1777 "$T/disk-shm"
if unshare -m true 2>/dev/null; then
	rm -f "$FAKE_DIR/args"
	# shellcheck disable=SC2016  # $1 and $@ are the inner sh's
	(cd -- "$WS" && XDG_RUNTIME_DIR=$T/disk-run unshare -m sh -c 'mount --bind "$1" /dev/shm && shift && exec "$@"' \
		sh "$T/disk-shm" sh "$CS" --keys-in --managed http://192.0.2.1:4000 claude </dev/null >"$T/out" 2>"$T/err")
	t "no memory-backed directory: -e NAME, and a warning naming inspect" \
		sh -c "grep -qx ANTHROPIC_API_KEY '$FAKE_DIR/args' && grep -q 'warning: no memory-backed directory.*inspect' '$T/err'"
	t "... nothing written to either disk directory" sh -c "[ -z \"\$(ls -A '$T/disk-run')\" ] && [ -z \"\$(ls -A '$T/disk-shm')\" ]"
else
	t_skip "no memory-backed directory: -e NAME (needs unshare -m, i.e. root)"
fi
# The engine's status is the script's, and the file goes whatever the status.
FAKE_RUN_RC=3 cs --managed http://192.0.2.1:4000 claude
t "the engine's exit status is the script's (no exec any more)" rc_is 3
t "... the directory is gone after a failed run" cred_gone
ANTHROPIC_API_KEY='' OPENAI_API_KEY='' cs --managed http://192.0.2.1:4000 claude
t "managed claude without any credential: refused before anything starts, naming the variable" failed_with "export ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN)"
t "... and the engine does not run" not_run
ANTHROPIC_API_KEY='' OPENAI_API_KEY='' cs --managed http://192.0.2.1:4000 pi -p hello
t "managed pi without any credential: refused, naming ANTHROPIC_API_KEY" failed_with "export ANTHROPIC_API_KEY (or another of pi's provider variables"
ANTHROPIC_API_KEY='' OPENAI_API_KEY='' cs --interactive claude
t "interactive claude without a credential: a warning (its own login may work), and it runs" \
	sh -c "grep -q 'warning: no credential for claude' '$T/err' && [ -f '$FAKE_DIR/args' ]"
mkdir -p "$HOME/.codex" && printf '{}' >"$HOME/.codex/auth.json"
ANTHROPIC_API_KEY='' OPENAI_API_KEY='' cs --managed http://192.0.2.1:4000 codex
t "codex with a login in ~/.codex/auth.json and no key: runs, no -e key" sh -c "[ -f '$FAKE_DIR/args' ] && ! grep -qx OPENAI_API_KEY '$FAKE_DIR/args'"
rm -f "$HOME/.codex/auth.json"

# endpoints add NAME URL --key-env VAR
cs endpoints add keyed http://192.0.2.5:4000 --no-probe --key-env MY_GW_KEY
t "endpoints add --key-env: accepted" rc_is 0
t "... the line is 'NAME URL key-env=VAR'" grep -qxF "keyed http://192.0.2.5:4000 key-env=MY_GW_KEY" "$CLI_SANDBOX_HOME/endpoints"
cs endpoints list
t "... endpoints list shows it" grep -qxF "  keyed http://192.0.2.5:4000 key=\$MY_GW_KEY" "$T/out"
cs endpoints add bad http://192.0.2.5:4000 --no-probe --key-env 1BAD
t "--key-env with a bad variable name is refused" failed_with "bad --key-env"
cs endpoints add bad http://192.0.2.5:4000 --no-probe --frob x
t "an unknown endpoints add option is refused" failed_with "for endpoints add"
printf 'future http://192.0.2.6:1 type=anthropic speaks=anthropic model=m key-env=FUT_KEY vendor-x=1\n' >>"$CLI_SANDBOX_HOME/endpoints"
cs endpoints add other http://192.0.2.7:1 --no-probe
t "a line with attributes this script does not know survives another add" grep -qxF "future http://192.0.2.6:1 type=anthropic speaks=anthropic model=m key-env=FUT_KEY vendor-x=1" "$CLI_SANDBOX_HOME/endpoints"
ANTHROPIC_API_KEY='' MY_GW_KEY=sk-host-key-env-secret cs --endpoint keyed claude
t "an endpoint's key-env feeds the CLI's first variable, by name" env_is "ANTHROPIC_API_KEY=sk-host-key-env-secret"
t "... its value in no argument" no_key_anywhere "$FAKE_DIR/args"
ANTHROPIC_API_KEY='' OPENAI_API_KEY='' MY_GW_KEY=sk-host-key-env-secret cs --endpoint keyed --dry-run codex
t "... and not in --dry-run" no_key_anywhere "$T/out"
ANTHROPIC_API_KEY='' OPENAI_API_KEY='' MY_GW_KEY=sk-host-key-env-secret cs --endpoint keyed codex
t "... codex gets it as OPENAI_API_KEY" cred_file OPENAI_API_KEY=sk-host-key-env-secret
# the credentials file is cli-sandbox-ctl credentials' (it reads the values from its environment)
t "cli-sandbox-ctl credentials wrote the runs' files (--write, file=), and doctor asked it (--decide)" \
	sh -c "grep -q '^credentials --write ' '$T/ctl-args' && grep -q '^file=$RUN/cli-sandbox-credentials\\.' '$T/ctl-args' && grep -q '^credentials --decide ' '$T/ctl-args'"
t "... no key's value in any argument of cli-sandbox-ctl, nor in its credentials lines" no_key_anywhere "$T/ctl-args"
rm -f "$FAKE_DIR/credfile"
FUT_KEY=sk-host-key-env-secret cs --endpoint future claude
t "key-env found among other attributes (one this script does not know among them)" rc_is 0
t "... the key reaches claude's variable" cred_file "ANTHROPIC_API_KEY=sk-host-key-env-secret"
cs --endpoint keyed claude
t "key-env naming an unset variable: refused, naming it" failed_with "takes its key from MY_GW_KEY, which is not set"
cs endpoints rm keyed; cs endpoints rm future; cs endpoints rm other

# ---------------------------------------------------------------- input held to its rules (issue 32)
# A crafted endpoints file, names, models and URLs: nothing of them runs, the file's error names
# the file and the line, a password in a URL is refused and shown nowhere. In a home of their own:
# a bad line stops every command that reads the file.
EVIL=$T/conf-evil
mkdir -p "$EVIL"
M=$T/pwned
# shellcheck disable=SC2016 # the $(...) and ${...} are the attack, meant literally
printf 'ok http://192.0.2.8:1 type=anthropic speaks=anthropic model=m\nevil http://192.0.2.8:1 type=anthropic speaks=anthropic model=m key-env=K:-$(touch${IFS}%s)}\n' "$M" >"$EVIL/endpoints"
CLI_SANDBOX_HOME=$EVIL cs --endpoint evil --dry-run claude
t "a key-env that is no variable's name: --dry-run stops, naming the file and its line" failed_with "$EVIL/endpoints line 2: bad key-env="
t "... the command in it did not run" [ ! -e "$M" ]
t "... the engine did not run" not_run
CLI_SANDBOX_HOME=$EVIL cs --endpoint evil claude
t "... a run stops the same way" failed_with "$EVIL/endpoints line 2: bad key-env="
t "... and the command did not run" [ ! -e "$M" ]
t "... nor the engine" not_run
CLI_SANDBOX_HOME=$EVIL cs --endpoint ok --dry-run claude
t "a bad line stops a run of another endpoint too (nothing runs)" failed_with "line 2"
CLI_SANDBOX_HOME=$EVIL cs endpoints list
t "... and endpoints list" failed_with "line 2"
CLI_SANDBOX_HOME=$EVIL cs endpoints rm evil
t "endpoints rm mends the file" rc_is 0
CLI_SANDBOX_HOME=$EVIL cs endpoints list
t "... then it reads again" rc_is 0
# shellcheck disable=SC2016
printf 'evil http://192.0.2.8:1 type=anthropic speaks=anthropic model=$(touch${IFS}%s)\n' "$M" >>"$EVIL/endpoints"
CLI_SANDBOX_HOME=$EVIL cs --endpoint evil --dry-run claude
t "a model in the file outside the model's characters: stopped at its line" failed_with "$EVIL/endpoints line 2: bad model="
printf 'ok http://192.0.2.8:1 type=frob\n' >"$EVIL/endpoints"
CLI_SANDBOX_HOME=$EVIL cs --endpoint ok --dry-run claude
t "an unknown type in the file: stopped at line 1" failed_with "$EVIL/endpoints line 1: bad type="
printf 'ok http://user:s3cr3t-pw-32@192.0.2.8:1 type=anthropic speaks=anthropic\n' >"$EVIL/endpoints"
CLI_SANDBOX_HOME=$EVIL cs --endpoint ok --dry-run claude
t "a URL with user:pass@ in the file: stopped at its line" failed_with "line 1: the URL holds a user or password"
t "... the password is in no output" sh -c "! grep -qF s3cr3t-pw-32 '$T/out' '$T/err'"
# shellcheck disable=SC2016
cs endpoints add bad http://192.0.2.5:4000 --no-probe --key-env 'K:-$(touch${IFS}'"$M"')}'
t "endpoints add: a --key-env that is no variable's name is refused" failed_with "bad --key-env"
t "... nothing ran, nothing was recorded" sh -c "[ ! -e '$M' ] && ! grep -q '^bad ' '$CLI_SANDBOX_HOME/endpoints'"
# shellcheck disable=SC2016
cs endpoints add bad http://192.0.2.5:4000 --no-probe --model '$(touch${IFS}x)'
t "endpoints add: --model '\$(touch\${IFS}x)' is refused" failed_with "bad model name"
for m in qwen3:8b hf.co/org/model:Q4_K_M org/Model-7B llama3.1@sha256:abc; do
	cs endpoints add good http://192.0.2.5:4000 --type ollama --no-probe --model "$m"
	t "endpoints add: the model name $m is accepted" rc_is 0
done
cs endpoints rm good
printf 'ol http://192.0.2.8:11434 type=ollama speaks=ollama,chat\n' >"$EVIL/endpoints"
# shellcheck disable=SC2016
for sub in pull use; do
	CLI_SANDBOX_HOME=$EVIL cs --endpoint ol models "$sub" '$(touch${IFS}x)'
	t "models $sub '\$(touch\${IFS}x)' is refused before any request" failed_with "bad model name"
done
cs endpoints add bad "http://user:s3cr3t-pw-32@192.0.2.5:4000" --no-probe
t "endpoints add: a URL with user:pass@ is refused, naming --key-env" failed_with "--key-env VAR"
t "... the password is in no output and not in the file" sh -c "! grep -qF s3cr3t-pw-32 '$T/out' '$T/err' '$CLI_SANDBOX_HOME/endpoints'"
cs --managed "http://user:s3cr3t-pw-32@192.0.2.5:4000" --dry-run claude
t "--managed with user:pass@ is refused, naming --key-env" failed_with "--key-env VAR"
t "... the password is in no output" sh -c "! grep -qF s3cr3t-pw-32 '$T/out' '$T/err'"
t "... the engine did not run" not_run
# shellcheck disable=SC2016
printf 'q http://192.0.2.8:1/$(touch${IFS}x) type=openai speaks=responses\n' >"$EVIL/endpoints"
CLI_SANDBOX_HOME=$EVIL cs --endpoint q --dry-run claude
# The plan (cli-sandbox-ctl) reads the file by the program's rules: such a URL stops the run at
# its line, and no fix holds it.
t "a URL with shell characters in the endpoints file: refused, naming the file's line" failed_with "endpoints line 1: bad URL"

# ---------------------------------------------------------------- who owns what
# snapshot DIR: every path under DIR with its owner, group and mode.
snapshot() { find "$1" -exec stat -c '%n %u:%g %a' {} + 2>/dev/null | sort; }
FRESH=$T/fresh-home
mkdir -p "$FRESH/.codex" && printf '{"auth_mode":"apikey"}' >"$FRESH/.codex/auth.json" && chmod 600 "$FRESH/.codex/auth.json"
snapshot "$FRESH" >"$T/snap-before"
for u in 0 1000 1234; do
	for e in docker podman; do
		HOME=$FRESH CLI_SANDBOX_HOME=$FRESH/.config/cli-sandbox FAKE_UID=$u cs --dry-run --engine $e --managed http://192.0.2.1:4000 codex
	done
done
snapshot "$FRESH" >"$T/snap-after"
t "--dry-run (as root, uid 1000, uid 1234; docker and podman) creates and changes nothing under the home" cmp -s "$T/snap-before" "$T/snap-after"
HOME=$FRESH CLI_SANDBOX_HOME=$FRESH/.config/cli-sandbox FAKE_UID=0 cs --engine docker --managed http://192.0.2.1:4000 codex
t "as root: codex's state is a folder made for the sandbox under CLI_SANDBOX_HOME" \
	has_arg "$FRESH/.config/cli-sandbox/state/codex:/home/node/.codex"
t "as root: no CLI_SANDBOX_USER (the image's node, never root)" lacks_arg CLI_SANDBOX_USER
t "as root: root's own ~/.codex is not mounted" lacks_arg "$FRESH/.codex:"
if [ "$("$real_id" -u)" = 0 ]; then
	t "as root: the folder made for the sandbox belongs to uid 1000, mode 700" \
		[ "$(stat -c '%u:%g %a' "$FRESH/.config/cli-sandbox/state/codex")" = "1000:1000 700" ]
fi
HOME=$FRESH CLI_SANDBOX_HOME=$FRESH/.config/cli-sandbox FAKE_UID=1000 cs --engine podman --managed http://192.0.2.1:4000 codex
HOME=$FRESH CLI_SANDBOX_HOME=$FRESH/.config/cli-sandbox FAKE_UID=1000 cs --engine docker --managed http://192.0.2.1:4000 codex
# (the person's run leaves one new file, the empty placeholder over which the sandbox's own copy
# of config.toml is mounted: docs/host-script.md; it changes nothing that was there)
snapshot "$FRESH" | grep -v "/.config" | grep -v "^$FRESH/.codex/config.toml " >"$T/snap-after"
t "after runs as root and as the person, every file of the home keeps owner and mode (~/.codex/auth.json 600 included)" \
	cmp -s "$T/snap-before" "$T/snap-after"
FAKE_UID=1234 FAKE_GID=100 cs --engine docker --managed http://192.0.2.1:4000 codex
t "dockerd as uid 1234:100: the sandbox user is 1234:100" has_arg CLI_SANDBOX_USER=1234:100
t "... and CODEX_HOME names the mount (uid 1234 has no home in the image)" has_arg CODEX_HOME=/home/node/.codex
t "... the person's own ~/.codex is mounted" has_arg "$HOME/.codex:/home/node/.codex"
FAKE_UID=1234 cs --engine docker --managed http://192.0.2.1:4000 pi
t "dockerd as uid 1234: PI_CODING_AGENT_DIR names pi's part of the mount" has_arg PI_CODING_AGENT_DIR=/home/node/.pi/agent
FAKE_UID=1234 cs --engine podman --managed http://192.0.2.1:4000 codex
t "rootless podman as uid 1234: --userns=keep-id:uid=1000,gid=1000" has_arg --userns=keep-id:uid=1000,gid=1000
t "... no CLI_SANDBOX_USER, no CODEX_HOME" sh -c "! grep -q 'CLI_SANDBOX_USER\|CODEX_HOME' '$FAKE_DIR/args'"

# ---------------------------------------------------------------- engine choice by answer
DOCKER_HOST=$DOWN cs --managed http://192.0.2.1:4000 claude
t "a docker daemon that does not answer on its socket: podman is used" sh -c "[ \"\$(head -n 1 '$FAKE_DIR/args')\" = podman ]"
t "... and docker's client was not started" not_asked docker
DOCKER_CONTEXT=remote FAKE_DOCKER_DOWN=1 cs --managed http://192.0.2.1:4000 claude
t "DOCKER_CONTEXT: docker's client is asked (version), and its daemon not answering gives podman" \
	sh -c "[ \"\$(head -n 1 '$FAKE_DIR/args')\" = podman ] && grep -qx version '$FAKE_DIR/queries'"
cs --managed http://192.0.2.1:4000 claude
t "docker's daemon answers: docker is used" sh -c "[ \"\$(head -n 1 '$FAKE_DIR/args')\" = docker ]"
t "... asked on its socket (GET /_ping), docker's client not started" \
	sh -c "grep -qx /_ping '$FAKE_DIR/queries' && ! grep -qx version '$FAKE_DIR/queries'"
DOCKER_HOST=unix://$T/no-such.sock cs --managed http://192.0.2.1:4000 claude
t "no socket where DOCKER_HOST says: podman, and docker's client is not even started" \
	sh -c "[ \"\$(head -n 1 '$FAKE_DIR/args')\" = podman ] && ! grep -qx docker '$FAKE_DIR/queries'"
DOCKER_HOST='' DOCKER_CONFIG=$T/dockercfg cs --managed http://192.0.2.1:4000 claude
if [ ! -S /var/run/docker.sock ]; then
	t "no DOCKER_HOST, no context, no /var/run/docker.sock: podman without asking docker" \
		sh -c "[ \"\$(head -n 1 '$FAKE_DIR/args')\" = podman ] && ! grep -qx docker '$FAKE_DIR/queries'"
fi
mkdir -p "$T/dockercfg" && printf '{"currentContext": "desktop-linux"}\n' >"$T/dockercfg/config.json"
DOCKER_HOST='' DOCKER_CONFIG=$T/dockercfg cs --managed http://192.0.2.1:4000 claude
t "a docker context in the config: docker's client is asked" grep -qx docker "$FAKE_DIR/queries"
DOCKER_HOST=$DOWN cs --engine docker --managed http://192.0.2.1:4000 claude
t "--engine docker is kept even when its daemon does not answer" sh -c "[ \"\$(head -n 1 '$FAKE_DIR/args')\" = docker ]"
DOCKER_HOST=$DOWN PATH="$T/only-docker:$T/min" cs --managed http://192.0.2.1:4000 claude
t "docker not answering and no podman: one line naming both and how to start each" \
	failed_with "docker's daemon does not answer (Cannot connect to the Docker daemon"
t "... the line says how to get podman" err_has "install podman"
t "... and nothing runs" not_run

# ---------------------------------------------------------------- shell
# shellcheck disable=SC2016  # the $HOME is bash's, inside the sandbox
cs --managed http://192.0.2.1:4000 shell -- -c 'id -u; echo "$HOME"'
# shellcheck disable=SC2016
t "shell -- ARGS: bash ARGS as the init's command" [ "$(tail -n 4 "$FAKE_DIR/args" | tr '\n' '|')" = '--|bash|-c|id -u; echo "$HOME"|' ]
t "... in the same sandbox: the CLI's state, credentials, profile" sh -c "grep -qxF '$HOME/.claude:/home/node/.claude' '$FAKE_DIR/args' && grep -qxF ANTHROPIC_API_KEY=$KEY_A '$FAKE_DIR/credfile' && grep -qx CLI_SANDBOX_EGRESS_PROFILE=managed '$FAKE_DIR/args' && grep -qx -e --cap-drop=ALL '$FAKE_DIR/args'"
cs --managed http://192.0.2.1:4000 shell -w "$T/plain" --cli codex
t "shell -w DIR --cli codex: DIR at /workspace, codex's state, bash alone" \
	sh -c "grep -qxF '$T/plain:/workspace' '$FAKE_DIR/args' && grep -qxF '$HOME/.codex:/home/node/.codex' '$FAKE_DIR/args' && [ \"\$(tail -n 2 '$FAKE_DIR/args' | tr '\n' ' ')\" = '-- bash ' ]"
ANTHROPIC_API_KEY='' OPENAI_API_KEY='' cs --managed http://192.0.2.1:4000 shell -- -c true
t "shell without a credential: a warning, and it runs" sh -c "grep -q 'warning: no credential' '$T/err' && [ -f '$FAKE_DIR/args' ]"
cs shell --frob
t "shell with an unknown argument is refused" failed_with "unknown shell argument"

# ---------------------------------------------------------------- doctor: what breaks a run
mkdir -p "$T/ro-ws" && chmod 755 "$T/ro-ws"
cs doctor --json --interactive --workspace "$T/ro-ws"
t "doctor --json (as uid 1000): a workspace the sandbox user cannot write fails, with a fix" \
	jq_is '(j["ok"], c["workspace"]["ok"], "not writable by the sandbox user, uid 1000:1000" in c["workspace"]["detail"], "uid 1000" in c["workspace"]["fix"])' "(False, False, True, True)"
cs --managed http://192.0.2.1:4000 --workspace "$T/ro-ws" claude -- -p hi
t "a run whose workspace the sandbox user cannot write: a warning with the fix, before it starts" \
	sh -c "grep -q 'warning: the workspace $T/ro-ws is not writable by the sandbox user, uid 1000:1000.*let uid 1000 write it' '$T/err' && [ -f '$FAKE_DIR/args' ]"
chmod 777 "$T/ro-ws"
cs --managed http://192.0.2.1:4000 --workspace "$T/ro-ws" claude -- -p hi
t "... and none once it can" sh -c "! grep -q 'is not writable by the sandbox user' '$T/err' && [ -f '$FAKE_DIR/args' ]"
chmod 755 "$T/ro-ws"
if [ "$("$real_id" -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
	FAKE_UID=0 cs doctor --json --interactive --workspace "$T/ro-ws"
	t "doctor --json as root: tested as uid 1000 (the kernel asked), a root-owned 755 workspace fails" \
		jq_is '(c["workspace"]["ok"], "tested as that uid" in c["workspace"]["detail"])' "(False, True)"
	chmod 777 "$T/ro-ws"
	FAKE_UID=0 cs doctor --json --interactive --workspace "$T/ro-ws"
	t "doctor --json as root: the same folder made writable for uid 1000 passes (its parents do not count)" \
		jq_is 'c["workspace"]["ok"]' True
	t "doctor --json as root: ownership says the agent's files belong to uid 1000" \
		jq_is '(c["ownership"]["ok"], "belong to uid 1000" in c["ownership"]["detail"])' "(True, True)"
fi
ANTHROPIC_API_KEY='' OPENAI_API_KEY='' cs doctor --json --interactive
t "doctor --json: a missing credential fails, naming the variable" \
	jq_is '(j["ok"], c["credential"]["ok"], "ANTHROPIC_API_KEY" in c["credential"]["fix"])' "(False, False, True)"
cs doctor --json --interactive pi
t "doctor --json: a credential that is there is named, its value never printed" \
	jq_is '(c["credential"]["ok"], "ANTHROPIC_API_KEY OPENAI_API_KEY" in c["credential"]["detail"])' "(True, True)"
t "... no key's value in doctor's output" no_key_anywhere "$T/out"
DOCKER_HOST=$DOWN cs doctor --json --interactive
t "doctor: docker not answering, podman chosen, and it says why" \
	jq_is '(c["engine"]["ok"], c["engine"]["detail"])' "(True, \"podman answers (docker's daemon does not answer (Cannot connect to the Docker daemon at $DOWN. Is the docker daemon running?), so podman (it needs no daemon))\")"
DOCKER_HOST=$DOWN PATH="$T/only-docker:$T/min" cs doctor --json --interactive
t "doctor: neither engine answers: the engine check fails with the one line and how to start each" \
	jq_is '(c["engine"]["ok"], "podman is not installed" in c["engine"]["detail"], "systemctl start docker" in c["engine"]["fix"])' "(False, True, True)"

# ---------------------------------------------------------------- doctor, shell and ping on the gateway's path
# Endpoints with a type (host/lib/gateway.sh's plan): a Chat-Completions-only one that claude
# reaches through the gateway, an Anthropic one it reaches directly, an Ollama (a mock on
# loopback) with a model that is installed and one that is not.
GWI=localhost/cli-sandbox-gateway:latest
KBI=localhost/cli-sandbox-broker:latest
cs endpoints add gwc "http://127.0.0.1:$port/v1" --type openai --model m --no-probe
cs endpoints add gwa "http://127.0.0.1:$port" --type anthropic --model m --key-env GW_TEST_KEY --no-probe
python3 "$repo/tests/gateway/mock_gateway.py" --listen 127.0.0.1 --port 0 --max-seconds 120 \
	--speaks ollama,chat --models qwen3:8b+tools >"$T/oll.port" 2>/dev/null &
listener_pid="$listener_pid $!"
oll_pid=$!
i=0
while ! grep -q listening "$T/oll.port" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
oport=$(awk '{ print $NF }' "$T/oll.port")
cs endpoints add gwo "http://127.0.0.1:$oport" --type ollama --model qwen3:8b --no-probe
cs endpoints add gwo2 "http://127.0.0.1:$oport" --type ollama --model absent:1b --no-probe
# (A translation needs the key broker: doctor's plan, as a run's, refuses it with --keys-in.)
CS_KEYS_OUT=1 ANTHROPIC_API_KEY='' FAKE_IMAGES="localhost/cli-sandbox:latest $GWI $KBI" cs --endpoint gwc doctor --json
t "doctor --json, a gateway endpoint: the path is the gateway, said in one line" \
	jq_is '(c["path"]["ok"], "claude goes through the gateway to endpoint " + chr(39) + "gwc" + chr(39) + " (openai, speaks chat, model m)" in c["path"]["detail"])' "(True, True)"
t "... its image present" jq_is '(c["gateway-image"]["ok"], c["gateway-image"]["detail"])' "(True, '$GWI is present')"
t "... not up: each run starts its own" jq_is '(c["gateway"]["ok"], c["gateway"]["detail"].startswith("not up: each run starts one"))' "(True, True)"
t "... the credential is the run's token: no key of the person's needed" jq_is '(c["credential"]["ok"], "token" in c["credential"]["detail"])' "(True, True)"
t "... the key broker's image, which a translation goes behind, present" jq_is '(c["broker-image"]["ok"], c["broker-image"]["detail"])' "(True, '$KBI is present')"
t "... in that order, after the endpoint" jq_is '[x["name"] for x in j["checks"]][:8]' "['engine', 'image', 'endpoint', 'path', 'gateway-image', 'gateway', 'broker-image', 'credential']"
CS_KEYS_OUT=1 cs --endpoint gwc doctor
t "doctor (text) without the gateway's image: FAIL with the build command" \
	sh -c "grep -q '^FAIL gateway-image: the gateway.s image $GWI is not present' '$T/out' && grep -q 'fix: build it: sh image/build.sh --cli gateway' '$T/out'"
# up's record (cli-sandbox-ctl session start --keep, docs/broker.md): it names the kept session,
# whose file names the router behind the broker and its address.
mkdir -p "$CLI_SANDBOX_HOME/broker" "$T/cli-sandbox-session-up.t"
printf 'session=%s\n' "$T/cli-sandbox-session-up.t" >"$CLI_SANDBOX_HOME/broker/gwc"
printf 'engine=docker\ncontainer=cli-sandbox-gw-gwc\ncontainer=cli-sandbox-broker-gwc\nrouter=cli-sandbox-gw-gwc\nrouter_ip=198.51.100.170\n' >"$T/cli-sandbox-session-up.t/session"
CS_KEYS_OUT=1 FAKE_RUNNING=true FAKE_IMAGES="localhost/cli-sandbox:latest $GWI $KBI" cs --endpoint gwc doctor --json
t "doctor --json, an up gateway that runs: ok, its container and address" \
	jq_is '(c["gateway"]["ok"], c["gateway"]["detail"])' "(True, \"up: cli-sandbox-gw-gwc at 198.51.100.170:3456, behind the key broker 'up' keeps, which runs join\")"
CS_KEYS_OUT=1 FAKE_RUNNING=false FAKE_IMAGES="localhost/cli-sandbox:latest $GWI $KBI" cs --endpoint gwc doctor --json
t "doctor --json, an up gateway whose container is gone: a stale record, fix down" \
	jq_is '(j["ok"], c["gateway"]["ok"], "stale record" in c["gateway"]["detail"], "down" in c["gateway"]["fix"])' "(False, False, True, True)"
t "... the record left as it was (doctor only reads)" [ -f "$CLI_SANDBOX_HOME/broker/gwc" ]
rm -rf "$T/cli-sandbox-session-up.t"
CS_KEYS_OUT=1 FAKE_RUNNING=true FAKE_IMAGES="localhost/cli-sandbox:latest $GWI $KBI" cs --endpoint gwc doctor --json
t "doctor --json, up's record whose session is gone (a restart): stale, fix down" \
	jq_is '(c["gateway"]["ok"], "session is gone" in c["gateway"]["detail"], "down" in c["gateway"]["fix"])' "(False, True, True)"
rm -f "$CLI_SANDBOX_HOME/broker/gwc"
cs --endpoint gwc doctor --json codex
t "doctor --json, codex against Chat Completions only: refused before start, and why" \
	jq_is '(c["path"]["ok"], "refused before start: codex needs the OpenAI Responses API" in c["path"]["detail"])' "(False, True)"
cs --endpoint gwa doctor --json
t "doctor --json, an unset key variable: the plan refused, naming it" \
	jq_is '(c["path"]["ok"], "GW_TEST_KEY" in c["path"]["detail"])' "(False, True)"
GW_TEST_KEY=sk-gw-host-test-value cs --endpoint gwa doctor --json
t "doctor --json, an Anthropic endpoint: claude goes direct, no gateway lines" \
	jq_is '(c["path"]["ok"], "goes direct" in c["path"]["detail"], "gateway" in c)' "(True, True, False)"
t "... no key's value in doctor's output" sh -c "! grep -q sk-gw-host-test-value '$T/out'"
CS_KEYS_OUT=1 GW_TEST_KEY=sk-gw-host-test-value cs --endpoint gwa doctor --json
t "doctor --json, keys out: claude goes through the key broker, which alone holds the key" \
	jq_is '(c["path"]["ok"], "through the key broker" in c["path"]["detail"], "GW_TEST_KEY" in c["path"]["detail"])' "(True, True, True)"
t "... the broker's image missing: FAIL with its build" \
	jq_is '(c["broker-image"]["ok"], "image/build.sh --cli broker" in c["broker-image"]["fix"])' "(False, True)"
t "... no key's value in doctor's output" sh -c "! grep -q sk-gw-host-test-value '$T/out'"
FAKE_IMAGES="localhost/cli-sandbox:latest $GWI" cs --endpoint gwo doctor --json
t "doctor --json, Ollama reachable with the model: installed" jq_is '(c["model"]["ok"], c["model"]["detail"])' "(True, \"qwen3:8b is installed on 'gwo'\")"
FAKE_IMAGES="localhost/cli-sandbox:latest $GWI" cs --endpoint gwo2 doctor --json
t "doctor --json, Ollama reachable without the model: FAIL, fix models pull" \
	jq_is '(c["model"]["ok"], "models pull absent:1b" in c["model"]["fix"])' "(False, True)"
kill "$oll_pid" 2>/dev/null
FAKE_IMAGES="localhost/cli-sandbox:latest $GWI" cs --endpoint gwo doctor --json
t "doctor --json, Ollama not answering: the model not checked, said so" jq_is '(c["model"]["ok"], "not checked" in c["model"]["detail"])' "(True, True)"

# shell on the gateway's path (a dry run: nothing is started): bash gets the gateway's URL
# and the rc that points pi and codex as the init would.
FAKE_GATEWAY=127.0.0.1 cs --endpoint gwc --dry-run shell -- -c 'claude -p hi'
# (The router sits behind the key broker, even with --keys-in: the sandbox reaches the broker.)
t "shell through the gateway: ANTHROPIC_BASE_URL names the key broker in front of it (a dry run)" grep -qF "'ANTHROPIC_BASE_URL=http://<broker-ip>:8080'" "$T/out"
t "... the managed firewall allows exactly the broker" grep -qF "'TASK_AGENT_MODEL_BASE_URL=http://<broker-ip>:8080'" "$T/out"
t "... whose upstream is the router" grep -qF "upstream http://<gateway-ip>:3456," "$T/out"
t "... the shell's rc mounted read-only, and named by BASH_ENV and --rcfile" \
	sh -c "grep -qF '$repo/host/lib/shell-rc.sh:/opt/cli-sandbox/shell-rc.sh:ro' '$T/out' && grep -qF \"'BASH_ENV=/opt/cli-sandbox/shell-rc.sh'\" '$T/out' && grep -qF \"'--rcfile'\" '$T/out'"
t "... the router started for the session is printed first" grep -q "^# the translator behind the key broker" "$T/out"
t "... and no word of an 'up' broker, with none up (its join's answer not lost to the router's helpers)" sh -c "! grep -q \"^# the key broker 'up' keeps\" '$T/out'"
t "... on the router's network, which the sandbox (its command after '# then the sandbox') is not on" \
	sh -c "grep -qF \"'cli-sandbox-gw-run-\" '$T/out' && sed -n '/^# then the sandbox/,\$p' '$T/out' >'$T/sb' && grep -qF \"'cli-sandbox-broker-run-\" '$T/sb' && ! grep -qF cli-sandbox-gw-run- '$T/sb'"
t "... its token and key from a file on memory, mounted read-only, read before its entrypoint" \
	sh -c "grep -qF \"/cli-sandbox-gateway.\" '$T/out' && grep -qF \":/run/cli-sandbox-gateway/env:ro'\" '$T/out' && grep -qF \"'set -a && . /run/cli-sandbox-gateway/env && set +a && exec /usr/local/bin/cli-sandbox-gateway'\" '$T/out' && ! grep -qF \"'CLI_SANDBOX_GATEWAY_TOKEN'\" '$T/out'"
t "... whose container has a read-only root, no capability and bounds" sh -c "grep -qF \"'--read-only'\" '$T/out' && grep -qF \"'--pids-limit' \\\\\" '$T/out' && grep -qF \"'HOME=/tmp'\" '$T/out'"
# A host-local endpoint through the gateway: this host's address on the gateway's upstream
# network, when one is named (CLI_SANDBOX_GATEWAY_UPSTREAM_NETWORK), else on the default one.
cs endpoints add gwl http://localhost:11434 --type ollama --model m --no-probe
FAKE_GATEWAY=198.51.100.161 CLI_SANDBOX_GATEWAY_UPSTREAM_NETWORK=gw-up cs --endpoint gwl --dry-run claude
t "a host-local endpoint: the gateway is given this host's address on its upstream network" \
	sh -c "grep -qF '\"api_base_url\":\"http://198.51.100.161:11434/v1/chat/completions\"' '$T/out' && grep -qx gw-up '$FAKE_DIR/queries'"
FAKE_GATEWAY=198.51.100.161 cs --endpoint gwl --dry-run claude
t "... on the engine's default network without one" grep -qx bridge "$FAKE_DIR/queries"
FAKE_GATEWAY='|198.51.100.160/29' CLI_SANDBOX_GATEWAY_UPSTREAM_NETWORK=gw-up cs --endpoint gwl --dry-run claude
t "... docker's network made with --subnet alone (no gateway listed): the subnet's first address" \
	grep -qF '"api_base_url":"http://198.51.100.161:11434/v1/chat/completions"' "$T/out"
FAKE_GATEWAY='<nil>' CLI_SANDBOX_GATEWAY_UPSTREAM_NETWORK=gw-up cs --endpoint gwl --dry-run claude
t "... a network without a gateway address: refused, naming it and the fix" failed_with "network gw-up: start docker, or set CLI_SANDBOX_HOST_ADDRESS"

# shell and the rc it reads: in bash, pi and codex become the commands the init would run.
cat >"$T/rc-test.sh" <<'EOF2'
command() { printf '%s|' "$@"; echo; }
. "$1"
pi -p hi
codex exec hi
EOF2
t "shell-rc.sh: pi gets the image's extension" sh -c "ANTHROPIC_BASE_URL=http://gw:3456 bash '$T/rc-test.sh' '$repo/host/lib/shell-rc.sh' 2>/dev/null | head -n 1 | grep -qx -- 'pi|-e|/usr/local/share/cli-sandbox/pi-base-url.js|-p|hi|'"
t "shell-rc.sh: codex gets openai_base_url" sh -c "OPENAI_BASE_URL=http://ep/v1 bash '$T/rc-test.sh' '$repo/host/lib/shell-rc.sh' 2>/dev/null | grep -qx -- 'codex|-c|openai_base_url=\"http://ep/v1\"|exec|hi|'"
FAKE_GATEWAY=127.0.0.1 GW_TEST_KEY=sk-gw-host-test-value cs --endpoint gwa shell -- -c true
t "shell on a direct path: ANTHROPIC_BASE_URL is the endpoint, the key in the credentials file" \
	sh -c "grep -qxF 'ANTHROPIC_BASE_URL=http://127.0.0.1:$port' '$FAKE_DIR/args' && grep -qxF ANTHROPIC_API_KEY=sk-gw-host-test-value '$FAKE_DIR/credfile'"
# ping on a direct path: the key in the credentials file, as a run's, never an argument.
FAKE_GATEWAY=127.0.0.1 GW_TEST_KEY=sk-gw-host-test-value cs --endpoint gwa ping --no-tools
t "ping: its sandbox gets the key in the credentials file" grep -qxF ANTHROPIC_API_KEY=sk-gw-host-test-value "$FAKE_DIR/credfile"
t "... mounted read-only where the init reads it" grep -q '/cli-sandbox-credentials.PID/env:/run/cli-sandbox-credentials/env:ro$' "$FAKE_DIR/args"
t "... no value, nor -e of its name, among the engine's arguments" sh -c "! grep -q sk-gw-host-test-value '$FAKE_DIR/args' && ! grep -qx ANTHROPIC_API_KEY '$FAKE_DIR/args'"
t "... and the file is gone after" sh -c "[ -z \"\$(ls -A '$RUN')\" ]"
t "ping's sandbox gets the run's limits (pids, memory, no swap on top, /tmp)" sh -c "grep -qx -- --pids-limit '$FAKE_DIR/args' && grep -qx -- --memory-swap '$FAKE_DIR/args' && grep -q '^/tmp:rw,nosuid,nodev,exec,size=' '$FAKE_DIR/args'"
t "ping, a sandbox that printed no check: NOT OK, naming the check, exit 1" \
	sh -c "[ $rc = 1 ] && grep -q '^NOT OK  direct   the sandbox did not run the check' '$T/out' && grep -qx 'NOT OK (claude via direct to gwa)' '$T/out'"
FAKE_RUN_OUT=$(printf '%s\n' 'cli-sandbox-init: starting' '{"check":"direct","ok":true,"ms":41,"api":"anthropic","reply":"pong\u001b[2J"}' \
	'cli-sandbox-init: blocked: tcp 203.0.113.9:443 "x"')
FAKE_RUN_OUT=$FAKE_RUN_OUT FAKE_GATEWAY=127.0.0.1 GW_TEST_KEY=sk-gw-host-test-value cs --endpoint gwa ping --no-tools
t "ping: a check's line and the firewall's refusal, reported; no escape reaches the terminal" \
	sh -c "[ $rc = 1 ] && grep -qx 'ok      direct      41 ms  reply: pong?\[2J' '$T/out' && grep -qF 'NOT OK  firewall the firewall refused tcp 203.0.113.9:443 \"x\"' '$T/out'"
FAKE_RUN_OUT=$(printf '%s\n' '{"check":"direct","ok":true,"ms":41,"api":"anthropic","reply":"pong"}')
FAKE_RUN_OUT=$FAKE_RUN_OUT FAKE_GATEWAY=127.0.0.1 GW_TEST_KEY=sk-gw-host-test-value cs --endpoint gwa ping --no-tools --json
t "ping --json: READY, one object with its checks, exit 0" sh -c "[ $rc = 0 ] && python3 -c 'import json,sys; j = json.load(open(sys.argv[1])); assert j[\"ready\"] is True and j[\"path\"] == \"direct\" and [c[\"check\"] for c in j[\"checks\"]] == [\"direct\"]' '$T/out'"

# ---------------------------------------------------------------- limits
# The defaults, from this machine: half its memory (at most 8 GiB), all CPUs but one (at least
# one), 65536 open files within this shell's hard limit, /tmp a quarter of the memory (at most 1g).
_mem=$(awk '/^MemTotal:/ { printf "%d", $2 / 2048 }' /proc/meminfo)
[ "$_mem" -le 8192 ] || _mem=8192
_cpus=$(getconf _NPROCESSORS_ONLN)
_cpus=$((_cpus > 1 ? _cpus - 1 : 1))
_nofile=$(awk 'index($0, "Max open files") == 1 { print $5 }' /proc/self/limits)
case $_nofile in *[!0-9]* | '') _nofile=65536 ;; esac
[ "$_nofile" -le 65536 ] || _nofile=65536
_tmp=$((_mem / 4))
[ "$_tmp" -le 1024 ] || _tmp=1024
(unset CLI_SANDBOX_MEMORY CLI_SANDBOX_CPUS CLI_SANDBOX_NOFILE && cs --interactive pi)
t "limits by default: 4096 processes" sh -c "grep -A1 -xF -- --pids-limit '$FAKE_DIR/args' | grep -qx 4096"
t "limits by default: memory ${_mem}m, half this host's at most 8g, with --memory-swap the same" \
	sh -c "grep -A1 -xF -- --memory '$FAKE_DIR/args' | grep -qx ${_mem}m && grep -A1 -xF -- --memory-swap '$FAKE_DIR/args' | grep -qx ${_mem}m"
t "limits by default: $_cpus CPUs, all but one of this host's" sh -c "grep -A1 -xF -- --cpus '$FAKE_DIR/args' | grep -qx $_cpus"
t "limits by default: nofile $_nofile, within this shell's hard limit" has_arg "nofile=$_nofile:$_nofile"
t "limits by default: /tmp a tmpfs of ${_tmp}m" has_arg "/tmp:rw,nosuid,nodev,exec,size=${_tmp}m,mode=1777"
CLI_SANDBOX_PIDS_LIMIT=5000 CLI_SANDBOX_TMP_SIZE=300m cs --interactive pi
t "CLI_SANDBOX_PIDS_LIMIT and CLI_SANDBOX_TMP_SIZE set their limits" sh -c "grep -A1 -xF -- --pids-limit '$FAKE_DIR/args' | grep -qx 5000 && grep -q 'size=300m,' '$FAKE_DIR/args'"
CLI_SANDBOX_PIDS_LIMIT=5000 cs --interactive --pids-limit 9000 --memory 3G --cpus 0.5 --nofile=2048 --tmp-size 1g pi
t "the options win over the variables" sh -c "grep -A1 -xF -- --pids-limit '$FAKE_DIR/args' | grep -qx 9000 &&
	grep -A1 -xF -- --memory '$FAKE_DIR/args' | grep -qx 3072m && grep -A1 -xF -- --cpus '$FAKE_DIR/args' | grep -qx 0.5 &&
	grep -qx nofile=2048:2048 '$FAKE_DIR/args' && grep -q 'size=1024m,' '$FAKE_DIR/args'"
cs --interactive --dry-run --pids-limit 9000 pi
t "--dry-run shows the limits" sh -c "grep -qx \"  '9000' \\\\\\\\\" '$T/out' && grep -q \"^  'nofile=4096:4096' \" '$T/out'"
CLI_SANDBOX_ENGINE_ARGS='--pids-limit 100' cs --interactive pi
t "CLI_SANDBOX_ENGINE_ARGS come after the limits, so their words win" \
	sh -c "[ \"\$(grep -n -xF -- --pids-limit '$FAKE_DIR/args' | tail -1 | cut -d: -f2-)\" = --pids-limit ] &&
	[ \"\$(grep -A1 -xF -- --pids-limit '$FAKE_DIR/args' | tail -1)\" = 100 ]"
for bad in '--memory lots' '--memory 1.5g' '--memory 10m' '--cpus 0' '--cpus x' '--cpus 9999' \
	'--pids-limit 10' '--pids-limit -1' '--nofile 100' '--tmp-size 3g'; do
	# shellcheck disable=SC2086 # the option and its value
	cs --interactive $bad pi
	t "a bad limit is refused with one line: $bad" failed_with "${bad%% *}"
	t "... and the engine does not run ($bad)" not_run
done
cs doctor --json --interactive
t "doctor --json lists the limits, ok" jq_is '(c["limits"]["ok"], "processes 4096, memory 2048m" in c["limits"]["detail"])' "(True, True)"

# ---------------------------------------------------------------- other shells
printf '#!/bin/sh\nexec bash --posix "$@"\n' >"$T/bash-posix" && chmod +x "$T/bash-posix"
for shell in dash bash-posix; do
	command -v "${shell%-posix}" >/dev/null 2>&1 || { printf '# SKIP %s: not installed\n' "$shell"; continue; }
	SH_UNDER_TEST=$shell
	[ "$shell" = dash ] || SH_UNDER_TEST=$T/bash-posix
	cs --managed http://192.0.2.1:4000/v1 -- "it's"
	t "$shell: managed claude, exact arguments" expect docker run "$LIM" "$COMMON" \
		-v "$HOME/.claude:/home/node/.claude" \
		-e CLI_SANDBOX_EGRESS_PROFILE=managed -e TASK_AGENT_MODEL_BASE_URL=http://192.0.2.1:4000/v1 \
		"$CRED_CLAUDE" "$GIT_ENV" localhost/cli-sandbox:latest -- claude "it's"
	SH_UNDER_TEST='sh'
done

# ---------------------------------------------------------------- keys out by default
# The key broker's path as the script builds it (the real engines: tests/broker/run.sh).
CS_KEYS_OUT=1
export KO_KEY=sk-keys-out-host-test-secret
cs endpoints add ko http://192.0.2.9:8080/v1 --type openai --speaks anthropic,chat,responses --model m1 --key-env KO_KEY --no-probe
cs --endpoint ko --dry-run claude -p hi
t "keys out: a dry run prints the broker's network, container and attachment" \
	sh -c "[ $rc = 0 ] && grep -q '^# the key broker beside the sandbox' '$T/out' && grep -qF \"'io.cli-sandbox.role=broker'\" '$T/out' && grep -qF \"'localhost/cli-sandbox-broker:latest'\" '$T/out' && grep -qF \"'connect' \\\\\" '$T/out'"
t "... the broker's confinement: read-only, no capability, no_new_privs, uid 1002, 64 MiB, 64 PIDs" \
	sh -c "grep -qxF \"  '--read-only' \\\\\" '$T/out' && grep -qxF \"  '1002:1002' \\\\\" '$T/out' && grep -qxF \"  'no-new-privileges' \\\\\" '$T/out' && grep -qxF \"  '64m' \\\\\" '$T/out'"
t "... its upstream the endpoint's root, the endpoint's model, Bearer (not Anthropic's API)" \
	grep -qF "upstream http://192.0.2.9:8080, models m1, model policy rewrite, key form bearer" "$T/out"
t "... the sandbox's only egress is the broker (the URL the init allows)" grep -qF "'TASK_AGENT_MODEL_BASE_URL=http://<broker-ip>:8080'" "$T/out"
t "... RUN-TOKEN in place of the token; no key, no token, no key's value anywhere" \
	sh -c "grep -qF 'ANTHROPIC_API_KEY = RUN-TOKEN' '$T/out' && ! grep -qF -e '$KO_KEY' -e '$ANTHROPIC_API_KEY' -e csbt_ '$T/out' '$T/err'"
t "... and the credentials file named, not -e" sh -c "grep -qF ':/run/cli-sandbox-credentials/env:ro' '$T/out' && ! grep -qxF \"  'ANTHROPIC_API_KEY' \\\\\" '$T/out'"
cs --managed http://192.0.2.1:4000/v1 --dry-run codex exec hi
t "keys out, codex --managed URL with OPENAI_API_KEY: its token in CODEX_API_KEY and OPENAI_API_KEY" \
	sh -c "[ $rc = 0 ] && grep -qF 'CODEX_API_KEY OPENAI_API_KEY = RUN-TOKEN' '$T/out' && grep -qF 'upstream http://192.0.2.1:4000, models any' '$T/out' && grep -qF \"'TASK_AGENT_MODEL_BASE_URL=http://<broker-ip>:8080/v1'\" '$T/out'"
GEMINI_API_KEY=g-keys-out-secret cs --managed http://192.0.2.1:4000 --dry-run gemini
t "keys out, gemini: the key form x-goog-api-key, its token in GEMINI_API_KEY" \
	sh -c "[ $rc = 0 ] && grep -qF 'gemini API, upstream http://192.0.2.1:4000, models any, model policy rewrite, key form x-goog-api-key' '$T/out' && grep -qF 'GEMINI_API_KEY = RUN-TOKEN' '$T/out' && ! grep -qF g-keys-out-secret '$T/out'"
cs endpoints add ko-oll http://192.0.2.9:11434 --type ollama --speaks ollama,chat,responses,anthropic --model m1 --no-probe
cs --endpoint ko-oll --dry-run claude
t "keys out, a keyless Ollama: no broker (no key of yours goes anywhere), the endpoint direct" \
	sh -c "[ $rc = 0 ] && ! grep -q 'key broker' '$T/out' && grep -qF \"'TASK_AGENT_MODEL_BASE_URL=http://192.0.2.9:11434'\" '$T/out' && ! grep -qF -e '$ANTHROPIC_API_KEY' '$T/out'"
cs --endpoint ko --keep-keys-out --dry-run claude
t "keys out: --keep-keys-out is accepted, the same path" sh -c "[ $rc = 0 ] && grep -q '^# the key broker beside the sandbox' '$T/out'"
cs --endpoint ko claude -p hi
t "keys out, a real run without the broker's image: refused with the fix, nothing run" \
	sh -c "[ $rc = 2 ] && grep -q \"the key broker's image localhost/cli-sandbox-broker:latest is not present.*image/build.sh --cli broker\" '$T/err' && [ ! -f '$FAKE_DIR/args' ]"
cs --endpoint ko --keys-in --dry-run claude
t "--keys-in: no broker, the key in the credentials file, one warning line" \
	sh -c "[ $rc = 0 ] && ! grep -q 'key broker beside' '$T/out' && [ \"\$(grep -c 'warning: --keys-in: the key in .KO_KEY enters the sandbox' '$T/err')\" = 1 ]"
CLI_SANDBOX_ENGINE_ARGS='--network ns:/run/netns/x' cs --endpoint ko --dry-run claude
t "keys out: a network of the person's own in CLI_SANDBOX_ENGINE_ARGS is refused with the fix" \
	sh -c "[ $rc = 2 ] && grep -q 'places the sandbox on a network of its own (--network).*--keys-in (CLI_SANDBOX_KEYS_IN=true)' '$T/err'"
CLI_SANDBOX_KEYS_IN=true CLI_SANDBOX_ENGINE_ARGS='--network ns:/run/netns/x' cs --endpoint ko --dry-run claude
t "... CLI_SANDBOX_KEYS_IN=true: the key in, the person's network, one warning line" \
	sh -c "[ $rc = 0 ] && ! grep -q 'key broker beside' '$T/out' && grep -qxF \"  'ns:/run/netns/x' \\\\\" '$T/out' && [ \"\$(grep -c 'warning: --keys-in' '$T/err')\" = 1 ]"
CLI_SANDBOX_KEYS_IN=maybe cs --endpoint ko --dry-run claude
t "... CLI_SANDBOX_KEYS_IN=maybe: refused" sh -c "[ $rc = 2 ] && grep -q 'CLI_SANDBOX_KEYS_IN=.maybe. is not valid' '$T/err'"
CS_KEYS_OUT=''

# host/lib/protect.sh's own checks (tests/host/protect.sh, TAP of its own): one check here.
if sh "$repo/tests/host/protect.sh" >"$T/protect.tap" 2>&1; then
	pass "tests/host/protect.sh: the protection's mounts, placeholders and random run directories"
else
	fail "tests/host/protect.sh: the protection's mounts, placeholders and random run directories" "$(grep -v '^ok' "$T/protect.tap")"
fi

t_done
