#!/bin/sh
# codex's nested sandbox, decided by the init after the drop: a stand-in
# "codex" (a script that prints its argv) run through the real init as an
# unprivileged uid.  The init's seccomp filter denies user namespaces by
# default, so the probe fails there and codex gets danger-full-access (with
# the EPERM as evidence); with CLI_SANDBOX_ALLOW_USERNS=true, and on this host
# where unprivileged user namespaces work, the probe passes: managed gets
# workspace-write (and approval_policy never), interactive keeps codex's own
# default; the operator's -s skips the probe.
# Root only (the drop needs it); the managed run uses a throwaway netns.
#
# usage: codex_probe.sh PATH-TO-cli-sandbox-init
set -u
INIT=$1
. "$(cd "$(dirname "$0")/.." && pwd)/lib/tap.sh"
if [ "$(id -u)" != 0 ]; then echo "skip: needs root"; exit 77; fi
command -v ip > /dev/null || { echo "skip: needs ip (iproute2)"; exit 77; }
T=$(mktemp -d /tmp/cs-probe.XXXXXX) || exit 1
NS=cs-probe-$$
cleanup() {
	ip netns delete "$NS" 2> /dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
chmod 755 "$T"
mkdir "$T/bin"
printf '#!/bin/sh\nfor a in "$@"; do printf "%%s\\n" "$a"; done\n' > "$T/bin/codex"
chmod 755 "$T/bin" "$T/bin/codex"
U=$(t_free_id 54321)
ip netns add "$NS" || { echo "not ok - ip netns add"; exit 1; }

run() {  # run NAME IN-NS PROFILE-ENV... -- ARGS...
	name=$1
	in_ns=$2
	shift 2
	penv=
	while [ "$1" != -- ]; do penv="$penv $1"; shift; done
	shift
	# shellcheck disable=SC2086  # word splitting of the lists is intended
	timeout 30 $in_ns env -i PATH="$T/bin:/usr/bin:/bin" HOME=/nonexistent \
		${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} $penv CLI_SANDBOX_USER="$U:$U" \
		"$INIT" -- codex "$@" > "$T/$name.out" 2> "$T/$name.err"
	echo $? > "$T/$name.rc"
	sed "s/^/# $name: /" "$T/$name.err"
}

# The default filter: no user namespace, so no nested sandbox.
run default "ip netns exec $NS" TASK_AGENT_MODEL_BASE_URL=http://192.0.2.1:8080 -- exec hi
ok "default filter: codex ran (exit $(cat "$T/default.rc"))" [ "$(cat "$T/default.rc")" = 0 ]
ok "default filter: the probe failed and chose danger-full-access" grep -qx 'sandbox_mode="danger-full-access"' "$T/default.out"
ok "default filter: the start line has the decision and the refusal" \
	grep -q 'codex sandbox: danger-full-access (user-namespace probe failed: .*Operation not permitted' "$T/default.err"

run managed "ip netns exec $NS" TASK_AGENT_MODEL_BASE_URL=http://192.0.2.1:8080 CLI_SANDBOX_ALLOW_USERNS=true -- exec hi
ok "managed: codex ran (exit $(cat "$T/managed.rc"))" [ "$(cat "$T/managed.rc")" = 0 ]
ok "managed: approval_policy never" grep -qx 'approval_policy="never"' "$T/managed.out"
ok "managed: the probe passed and chose workspace-write" grep -qx 'sandbox_mode="workspace-write"' "$T/managed.out"
ok "managed: the start line has the decision and its evidence" \
	grep -q 'codex sandbox: workspace-write (user-namespace probe passed: user+mount+pid+net+ipc' "$T/managed.err"
ok "managed: no placeholder reaches codex" sh -c "! grep -q 'decided at start' '$T/managed.out'"

run inter "" CLI_SANDBOX_EGRESS_PROFILE=interactive SKIP_EGRESS_FIREWALL=true CLI_SANDBOX_ALLOW_USERNS=true -- exec hi
ok "interactive: codex ran (exit $(cat "$T/inter.rc"))" [ "$(cat "$T/inter.rc")" = 0 ]
ok "interactive: no approval policy, no sandbox argument (codex's own default)" \
	sh -c "! grep -Eq 'approval_policy|sandbox_mode' '$T/inter.out'"
ok "interactive: the start line says codex keeps its default" grep -q "codex sandbox: codex's own default" "$T/inter.err"

run operator "" CLI_SANDBOX_EGRESS_PROFILE=interactive SKIP_EGRESS_FIREWALL=true -- -s read-only exec hi
ok "operator's -s: kept, no probe" sh -c "grep -q \"codex sandbox: the operator's -s (no probe)\" '$T/operator.err' &&
	! grep -q sandbox_mode '$T/operator.out'"
t_done
