#!/bin/sh
# A line for every 71 and 78 exit, and the right line (issue 11, finding 6).
# Each case below exited silently or named the wrong problem before the fix.
# Root only (a passwd file bind-mounted in a private mount namespace, a
# process of the sandbox user for RLIMIT_NPROC).
#
# usage: exit_lines.sh PATH-TO-cli-sandbox-init
set -u
INIT=$1
. "$(cd "$(dirname "$0")/.." && pwd)/lib/tap.sh"
if [ "$(id -u)" != 0 ]; then echo "skip: needs root"; exit 77; fi
for tool in unshare setpriv prlimit /usr/bin/python3; do
	command -v $tool > /dev/null || { echo "skip: needs $tool"; exit 77; }
done

T=$(mktemp -d /tmp/cs-lines.XXXXXX) || exit 1
HOLDER=
cleanup() {
	[ -n "$HOLDER" ] && kill "$HOLDER" 2> /dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
chmod 755 "$T"
U=$(t_free_id 54321)
MANAGED="TASK_AGENT_MODEL_BASE_URL=http://192.0.2.1:8080"
NOFW="CLI_SANDBOX_EGRESS_PROFILE=interactive SKIP_EGRESS_FIREWALL=true"

run() {  # run NAME VAR=VALUE... -- INIT-ARGS...: stdout to $T/NAME.out unless OUT is set
	name=$1
	shift
	vars=
	while [ "$1" != -- ]; do vars="$vars $1"; shift; done
	shift
	# shellcheck disable=SC2086
	env -i PATH=/usr/local/bin:/usr/bin:/bin ${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} $vars \
		$PRE "$INIT" "$@" > "${OUT:-$T/$name.out}" 2> "$T/$name.err"
	echo $? > "$T/$name.rc"
	grep -v 'SKIP_EGRESS_FIREWALL=true' "$T/$name.err" | sed "s/^/# $name: /"
}
PRE=
rc() { cat "$T/$1.rc"; }
one_line() { [ "$(grep -c 'error:' "$T/$1.err")" = 1 ]; }

# --dry-run and --check into a full disk: 71 with a line, not silence.
for mode in --dry-run --dry-run=json --check; do
	OUT=/dev/full
	run "full$mode" $MANAGED CLI_SANDBOX_USER="$U:$U" -- "$mode"
	OUT=
	ok "$mode > /dev/full: 71" [ "$(rc "full$mode")" = 71 ]
	ok "$mode > /dev/full: one error line about writing the output" \
		sh -c "one_line() { [ \"\$(grep -c 'error:' '$T/full$mode.err')\" = 1 ]; }; one_line && grep -q 'error:.*stdout\|error:.*output' '$T/full$mode.err'"
done

# A home directory that is not UTF-8: the JSON dump escapes it, as it does
# for arguments, instead of failing with a bare 71.
printf 'sbx:x:%s:%s::/home/caf\351:/bin/sh\n' "$U" "$U" > "$T/passwd"
chmod 644 "$T/passwd"
PRE=
unshare --mount --propagation private sh -c 'mount --bind "$0" /etc/passwd && exec "$@"' "$T/passwd" \
	env -i PATH=/usr/local/bin:/usr/bin:/bin ${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} $MANAGED CLI_SANDBOX_USER=sbx \
	"$INIT" --dry-run=json > "$T/home.out" 2> "$T/home.err"
echo $? > "$T/home.rc"
sed 's/^/# home: /' "$T/home.err"
ok "non-UTF-8 home: --dry-run=json succeeds (exit 0, got $(rc home))" [ "$(rc home)" = 0 ]
ok "non-UTF-8 home: the output is valid JSON" /usr/bin/python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$T/home.out"

# URL and directory messages name the real problem.
run port2 TASK_AGENT_MODEL_BASE_URL=http://192.0.2.1:8080:9090/ -- --check
ok "two ports: 78" [ "$(rc port2)" = 78 ]
ok "two ports: the message is not about IPv6" sh -c "! grep -qi ipv6 '$T/port2.err'"
ok "two ports: the message is about the port" grep -qi 'port' "$T/port2.err"
LONG=/$(head -c 5000 /dev/zero | tr '\0' a)
run longdir $MANAGED CLI_SANDBOX_PROFILE_DIR="$LONG" -- --check
ok "too-long CLI_SANDBOX_PROFILE_DIR: 78" [ "$(rc longdir)" = 78 ]
ok "too-long CLI_SANDBOX_PROFILE_DIR: not called 'not absolute'" sh -c "! grep -q 'not an absolute' '$T/longdir.err'"
ok "too-long CLI_SANDBOX_PROFILE_DIR: called too long" grep -q 'too long\|longer than' "$T/longdir.err"

# RLIMIT_NPROC: the user already runs a process and may run none, so the
# kernel refuses the exec with EAGAIN after the uid change.
# The holder is known to run as the user (read from /proc, not assumed
# after a 0.2 s sleep), and lives until it is killed below.
setpriv --reuid "$U" --regid "$U" --clear-groups sleep 120 &
HOLDER=$!
i=0
until grep -q "^Uid:[[:space:]]*$U[[:space:]]" "/proc/$HOLDER/status" 2> /dev/null || [ $i -ge 600 ]; do
	sleep 0.05
	i=$((i + 1))
done
ok "RLIMIT_NPROC: the holder runs as the user" grep -q "^Uid:[[:space:]]*$U[[:space:]]" "/proc/$HOLDER/status"
PRE="prlimit --nproc=0"
run nproc $NOFW CLI_SANDBOX_USER="$U:$U" -- -- true
PRE=
kill "$HOLDER"
wait "$HOLDER" 2> /dev/null
HOLDER=
ok "RLIMIT_NPROC: 126" [ "$(rc nproc)" = 126 ]
ok "RLIMIT_NPROC: the message names RLIMIT_NPROC" grep -q 'RLIMIT_NPROC' "$T/nproc.err"
ok "RLIMIT_NPROC: not 'a program for this machine'" sh -c "! grep -q 'program for this machine' '$T/nproc.err'"
t_done
