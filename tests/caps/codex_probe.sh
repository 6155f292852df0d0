#!/bin/sh
# codex's nested sandbox, decided by the init after the drop: a stand-in
# "codex" (a script that prints its argv) run through the real init as an
# unprivileged uid.  The init's seccomp filter denies user namespaces by
# default, so the probe fails there and codex gets danger-full-access (with
# the EPERM as evidence); with CLI_SANDBOX_ALLOW_USERNS=true, and on this host
# where unprivileged user namespaces work, the probe passes: managed gets
# workspace-write (and approval_policy never), interactive keeps codex's own
# default.  The operator's own sandbox: 78 where user namespaces are denied,
# the probe's word where they are allowed.
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
# The control: the namespaces the init's probe makes, made by the same uid
# without the init.  Where the host refuses them (max_user_namespaces 0, a
# sysctl or an LSM that denies unprivileged user namespaces), the probe must
# fail with CLI_SANDBOX_ALLOW_USERNS=true too: the cases that need it passing
# are skips with that reason, and the fallback is checked instead.
# shellcheck source=tests/lib/controls.sh
. "$(dirname "$0")/../lib/controls.sh"
if userns_works "$U"; then USERNS=1; else USERNS=0; fi
NO_USERNS=$C_WHY

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
if [ "$USERNS" = 1 ]; then
	ok "managed: the probe passed and chose workspace-write" grep -qx 'sandbox_mode="workspace-write"' "$T/managed.out"
	ok "managed: the start line has the decision and its evidence" \
		grep -q 'codex sandbox: workspace-write (user-namespace probe passed: user+mount+pid+net+ipc' "$T/managed.err"
else
	t_skip "managed: the probe passes and chooses workspace-write: $NO_USERNS"
	ok "managed, no user namespaces here: the probe failed and chose danger-full-access" \
		grep -qx 'sandbox_mode="danger-full-access"' "$T/managed.out"
fi
ok "managed: no placeholder reaches codex" sh -c "! grep -q 'decided at start' '$T/managed.out'"

run inter "" CLI_SANDBOX_EGRESS_PROFILE=interactive SKIP_EGRESS_FIREWALL=true CLI_SANDBOX_ALLOW_USERNS=true -- exec hi
ok "interactive: codex ran (exit $(cat "$T/inter.rc"))" [ "$(cat "$T/inter.rc")" = 0 ]
if [ "$USERNS" = 1 ]; then
	ok "interactive: no approval policy, no sandbox argument (codex's own default)" \
		sh -c "! grep -Eq 'approval_policy|sandbox_mode' '$T/inter.out'"
	ok "interactive: the start line says codex keeps its default" grep -q "codex sandbox: codex's own default" "$T/inter.err"
else
	t_skip "interactive: codex keeps its own default sandbox: $NO_USERNS"
	ok "interactive, no user namespaces here: no approval policy, danger-full-access" \
		sh -c "! grep -q 'approval_policy' '$T/inter.out' && grep -qx 'sandbox_mode=\"danger-full-access\"' '$T/inter.out'"
fi

# The operator's own sandbox needs user namespaces (issue 20, item 8): under
# the default filter the start stops with 78 and one line naming the option
# and the fix, and codex never runs; with CLI_SANDBOX_ALLOW_USERNS=true the
# probe must pass, and the start line names the operator's sandbox.
for opt in "-s read-only" "--approve-for-me" "-c sandbox_mode=workspace-write"; do
	n=$(echo "$opt" | tr -c 'a-z\n' _)
	# shellcheck disable=SC2086  # the option's words
	run "op$n" "" CLI_SANDBOX_EGRESS_PROFILE=interactive SKIP_EGRESS_FIREWALL=true -- $opt exec hi
	ok "operator's $opt, default filter: 78" [ "$(cat "$T/op$n.rc")" = 78 ]
	ok "operator's $opt, default filter: one line naming the option and the fix" \
		sh -c "grep -c 'error: codex: the operator.s ${opt%% *}' '$T/op$n.err' | grep -qx 1 &&
			grep -q 'CLI_SANDBOX_ALLOW_USERNS=true under an engine whose seccomp profile allows unshare' '$T/op$n.err'"
	ok "operator's $opt, default filter: codex never ran" [ ! -s "$T/op$n.out" ]
	# shellcheck disable=SC2086
	run "opu$n" "" CLI_SANDBOX_EGRESS_PROFILE=interactive SKIP_EGRESS_FIREWALL=true CLI_SANDBOX_ALLOW_USERNS=true -- $opt exec hi
	if [ "$USERNS" = 0 ]; then
		t_skip "operator's $opt, CLI_SANDBOX_ALLOW_USERNS=true: codex runs in its sandbox: $NO_USERNS"
		ok "operator's $opt, CLI_SANDBOX_ALLOW_USERNS=true, no user namespaces here: 78, codex never ran" \
			sh -c "[ \"\$(cat '$T/opu$n.rc')\" = 78 ] && [ ! -s '$T/opu$n.out' ]"
		continue
	fi
	ok "operator's $opt, CLI_SANDBOX_ALLOW_USERNS=true: codex ran (exit $(cat "$T/opu$n.rc"))" [ "$(cat "$T/opu$n.rc")" = 0 ]
	ok "operator's $opt, CLI_SANDBOX_ALLOW_USERNS=true: the start line names its sandbox and the passed probe" \
		grep -q "codex sandbox: [a-z-]*, the operator's ${opt%% *}.* (user-namespace probe passed" "$T/opu$n.err"
	ok "operator's $opt: no placeholder, no sandbox_mode of the init's" \
		sh -c "! grep -q 'sandbox_mode=\"' '$T/opu$n.out'"
done
run opdfa "" CLI_SANDBOX_EGRESS_PROFILE=interactive SKIP_EGRESS_FIREWALL=true -- -s danger-full-access exec hi
ok "operator's -s danger-full-access: kept, no probe, codex ran" \
	sh -c "grep -q \"codex sandbox: danger-full-access, the operator's -s (no probe\" '$T/opdfa.err' &&
		[ \"\$(cat '$T/opdfa.rc')\" = 0 ]"
t_done
