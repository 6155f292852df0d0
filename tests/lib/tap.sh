# shellcheck shell=sh
# The assertion helper of the shell tests, in TAP (as the C tests' check.h):
# one "ok N - ..." or "not ok N - ..." line per check, "# ..." diagnostics,
# and the plan line "1..N" at the end.  Source it.
#   ok DESCRIPTION COMMAND...   one check: passes when COMMAND succeeds
#                               (its output silenced where T_QUIET=1)
#   t_pass DESCRIPTION          records a passed check
#   t_fail DESCRIPTION [WHY]    records a failed check; WHY becomes "# " lines
#   t_skip REASON               records a skipped check ("ok N - # SKIP REASON"):
#                               counted apart, never as a pass (the kernel or
#                               machine lacks what the check needs; REASON
#                               says what, as read from a control)
#   t_note                      filter: prefixes every line of stdin with "# "
#   t_done                      prints the plan and "# N passed, N failed, N skipped";
#                               fails if any check failed
#   t_free_id START             the first uid/gid from START that no passwd or
#                               group entry names
T_PASS=0
T_FAIL=0
T_SKIP=0
t_pass() {
	T_PASS=$((T_PASS + 1))
	echo "ok $((T_PASS + T_FAIL + T_SKIP)) - $1"
}
t_fail() {
	T_FAIL=$((T_FAIL + 1))
	echo "not ok $((T_PASS + T_FAIL + T_SKIP)) - $1"
	[ -z "${2:-}" ] || printf '%s\n' "$2" | t_note
}
t_skip() {
	T_SKIP=$((T_SKIP + 1))
	echo "ok $((T_PASS + T_FAIL + T_SKIP)) - # SKIP $*"
}
t_note() {
	sed 's/^/# /'
}
T_QUIET=${T_QUIET:-0}
ok() {
	t_desc=$1
	shift
	if t_run "$@"; then
		t_pass "$t_desc"
	else
		t_fail "$t_desc"
	fi
}
t_run() {  # COMMAND...: runs it, its output silenced where T_QUIET=1
	if [ "$T_QUIET" = 1 ]; then "$@" >/dev/null 2>&1; else "$@"; fi
}
t_done() {
	echo "1..$((T_PASS + T_FAIL + T_SKIP))"
	echo "# $T_PASS passed, $T_FAIL failed, $T_SKIP skipped"
	[ "$T_FAIL" -eq 0 ]
}
t_free_id() {
	t_id=$1
	while grep -q "^[^:]*:[^:]*:$t_id:" /etc/passwd /etc/group; do
		t_id=$((t_id + 1))
	done
	echo "$t_id"
}
