#!/bin/sh
# The start-up path against a real kernel (root only):
#   - a fresh namespace gets a batch that creates and deletes nothing, a
#     restart one that replaces the table (seen by `nft monitor`);
#   - a table that appears between the look and the batch costs one retry;
#   - the readback catches a kernel table that differs from what was sent
#     in any way: each case programs the test ruleset, changes one thing
#     with nft, and the readback must refuse it.
#   - a first attempt that fails for another reason than the block log's
#     expressions (ENOBUFS on the batch's sendmsg, injected) is reported as
#     that, with its errno, and tried no second time (issue 23).
# usage: test_readback.sh PATH-TO-readback_check PATH-TO-cli-sandbox-init [PATH-TO-deny_call]
# shellcheck disable=SC2086  # $T is "inet cli_sandbox", two words on purpose
set -u
TOOL=$1
INIT=$2
DENY_CALL=${3:-}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/topology.sh"
trap topo_down EXIT INT TERM
NS="$TOPO_TAG-rb"
topo_ns "$NS" || exit 1
ip -n "$NS" link set lo up
run() { ip netns exec "$NS" "$@"; }
T=inet\ cli_sandbox

# Fresh start, then a restart, watched by nft monitor.
# (ip execs nft, so $! is nft itself; topo_down ends it too on an abort)
# No sleep decides what the monitor saw: a mark (a table of its own, added
# after the event it marks) is a barrier.  The kernel reports commits in
# order, so once the monitor has printed a mark, it has printed everything
# committed before it, however slow the machine.
topo_spawn "$NS" nft monitor tables > "$TOPO_DIR/monitor" 2>/dev/null
MON=$!
MARKS=0
mark() {  # mark [TENTHS]: adds a mark table and waits (up to 10 s) until the monitor prints it
	MARKS=$((MARKS + 1))
	run nft add table inet "cs_mark$MARKS"
	m=0
	while ! grep -q "table inet cs_mark$MARKS\$" "$TOPO_DIR/monitor" && [ $m -lt "${1:-100}" ]; do
		sleep 0.1
		m=$((m + 1))
	done
	grep -q "table inet cs_mark$MARKS\$" "$TOPO_DIR/monitor"
}
between() {  # between N M: the monitor's lines about cli_sandbox between marks N and M
	awk -v a="cs_mark$1" -v b="cs_mark$2" '$NF == a { on = 1; next } $NF == b { on = 0 } on && /cli_sandbox/' \
		"$TOPO_DIR/monitor"
}
# The monitor is listening once a mark shows (one not seen within 1 s is
# followed by another: it was committed before the monitor subscribed).
i=0
until mark 10 || [ $i -ge 30 ]; do i=$((i + 1)); done
READY=$MARKS
start() {
	run env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin CLI_SANDBOX_USER=nobody \
		TASK_AGENT_MODEL_BASE_URL=http://192.0.2.1:8080 "$INIT" -- true 2>/dev/null
}
ok "the monitor listens (mark $READY seen)" grep -q "table inet cs_mark$READY\$" "$TOPO_DIR/monitor"
ok "a managed start in a fresh namespace" start
mark
between "$READY" "$MARKS" > "$TOPO_DIR/fresh"
ok "a restart where the table exists" start
mark
between $((MARKS - 1)) "$MARKS" > "$TOPO_DIR/restart"
kill "$MON"
wait "$MON" 2>/dev/null
while [ "$MARKS" -gt 0 ]; do
	run nft delete table inet "cs_mark$MARKS"
	MARKS=$((MARKS - 1))
done
sed 's/^/# fresh start: /' "$TOPO_DIR/fresh"
sed 's/^/# restart: /' "$TOPO_DIR/restart"
ok "the fresh start only added the table (no delete: no grace-period wait)" \
	sh -c "grep -q '^create table inet cli_sandbox' '$TOPO_DIR/fresh' && ! grep -q 'delete table' '$TOPO_DIR/fresh'"
ok "the restart replaced it (delete and add in one transaction)" \
	sh -c "grep -q '^delete table inet cli_sandbox' '$TOPO_DIR/restart' && grep -Eq '^(add|create) table inet cli_sandbox' '$TOPO_DIR/restart'"

# The race: absent when looked at, present when the batch arrives.
run nft delete table $T
out=$(run "$TOOL" race "nft add table $T")
ok "a table that appears after the look: one retry with the replace batch ($out)" \
	[ "$out" = "seen: table absent; batches sent: 2" ]
ok "... and the result reads back as sent" run "$TOOL" verify
out=$(run "$TOOL" race "nft add table inet other")
ok "any commit after the look (generation check): one retry ($out)" \
	[ "$out" = "seen: table present; batches sent: 2" ]
run nft delete table inet other

# A message the kernel refuses in the middle of the batch (only the last
# one asks for an acknowledgement): the start fails naming that rule, with
# the kernel's errno, and nothing is committed.
run nft delete table $T
out=$(run "$TOOL" refuse 2> "$TOPO_DIR/refuse.err")
ok "a refused rule mid-batch fails the start (status $?)" [ $? -ne 0 ]
what=$(printf '%s' "$out" | sed -n 's/^spoilt: \(.*\); refused: .*/\1/p')
ok "... with the kernel's errno (ENOENT: no such expression): $out" \
	sh -c "printf '%s' '$out' | grep -q 'refused: $(python3 -c 'import errno; print(errno.ENOENT)')\$'"
ok "... and its line names the refused rule ($what)" \
	sh -c "[ -n '$what' ] && grep -qF '$what' '$TOPO_DIR/refuse.err'"
ok "... and nothing was committed" sh -c "! ip netns exec '$NS' nft list table $T >/dev/null 2>&1"

# The readback: identical first, then one difference at a time.
run "$TOOL" apply
ok "the readback accepts the table exactly as sent" run "$TOOL" verify
handle() {  # the handle of the rule in chain output that mentions $1
	run nft -a list chain $T output | sed -n "s/.*$1.* # handle \([0-9]*\)\$/\1/p" | head -n 1
}
refused() {  # refused DESCRIPTION NFT-ARGS...: apply, change, the readback must refuse
	desc=$1
	shift
	run "$TOOL" apply && run nft "$@" &&
		out=$(run "$TOOL" verify 2>&1)
	rc=$?
	ok "refused: $desc (${out:-no message})" was_refused
}
was_refused() {
	[ "$rc" -eq 1 ] && printf '%s\n' "$out" | grep -q 'read back from the kernel differs from the plan'
}
refused "an element missing" delete element $T allow_tcp_443 '{ 198.51.100.128/26 }'
refused "an element added" add element $T allow_tcp_443 '{ 198.51.100.200/30 }'
refused "an element with another end" -f - <<EOF
delete element $T allow_tcp_443 { 198.51.100.128/26 }
add element $T allow_tcp_443 { 198.51.100.128/27 }
EOF
h=$(run "$TOOL" apply && handle @allow_tcp_443)
refused "the set lookup inverted" replace rule $T output handle "$h" ip daddr != @allow_tcp_443 tcp dport 443 accept
h=$(run "$TOOL" apply && handle @allow_tcp_443)
refused "another port" replace rule $T output handle "$h" ip daddr @allow_tcp_443 tcp dport 444 accept
h=$(run "$TOOL" apply && handle @allow_tcp_443)
refused "an expression added (counter)" replace rule $T output handle "$h" ip daddr @allow_tcp_443 tcp dport 443 counter accept
h=$(run "$TOOL" apply && handle @allow_tcp_443)
refused "a rule deleted" delete rule $T output handle "$h"
refused "a rule appended" add rule $T output accept
refused "a rule inserted first" insert rule $T output accept
refused "another chain policy" chain $T output '{ policy accept; }'
refused "an extra regular chain" add chain $T extra
refused "an extra base chain" add chain $T extra '{ type filter hook output priority -10; policy accept; }'
refused "a base chain deleted" delete chain $T forward
refused "an extra set" add set $T extra '{ type ipv4_addr; }'
refused "the table dormant" add table $T '{ flags dormant; }'
refused "the table gone" delete table $T
run "$TOOL" apply
ok "a restart replaces whatever was changed, and reads back as sent" run "$TOOL" verify
# Issue 23: ENOBUFS on the batch is what the line says, with its errno;
# it is no reason to try again without the block log's rules.
if [ -n "$DENY_CALL" ]; then
	run nft delete table $T 2>/dev/null
	rm -f "$TOPO_DIR/ran"
	run env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin CLI_SANDBOX_USER=nobody \
		TASK_AGENT_MODEL_BASE_URL=http://192.0.2.1:8080 "$DENY_CALL" sendmsg 105 -- \
		"$INIT" -- sh -c "touch $TOPO_DIR/ran" 2> "$TOPO_DIR/enobufs.err"
	r=$?
	sed 's/^/# enobufs: /' "$TOPO_DIR/enobufs.err"
	ok "ENOBUFS on the batch: 71 (got $r)" [ $r = 71 ]
	ok "... one error line naming the batch's send and ENOBUFS" \
		sh -c "[ \$(grep -c 'error:' '$TOPO_DIR/enobufs.err') = 1 ] && grep -q 'error:.*netlink batch (sendmsg).*ENOBUFS' '$TOPO_DIR/enobufs.err'"
	ok "... not called a refusal of the block log's rules, no second attempt" \
		sh -c "! grep -q \"block log's rules\" '$TOPO_DIR/enobufs.err'"
	ok "... nothing committed, the command never ran" \
		sh -c "! ip netns exec '$NS' nft list table $T >/dev/null 2>&1 && [ ! -e '$TOPO_DIR/ran' ]"
fi
# The red team's case: only the first attempt fails (strace injects ENOBUFS
# into the first sendmsg alone), where a second would succeed.  It used to
# go on without the block log's rules, blaming them; now it is the error.
if command -v strace > /dev/null; then
	run nft delete table $T 2>/dev/null
	rm -f "$TOPO_DIR/ran"
	# (LeakSanitizer cannot run under ptrace: a sanitized init would die of it)
	run strace -f -qq -o /dev/null -e trace=sendmsg -e inject=sendmsg:error=ENOBUFS:when=1 \
		env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin CLI_SANDBOX_USER=nobody ASAN_OPTIONS=detect_leaks=0 \
		TASK_AGENT_MODEL_BASE_URL=http://192.0.2.1:8080 "$INIT" -- sh -c "touch $TOPO_DIR/ran" \
		2> "$TOPO_DIR/enobufs1.err"
	r=$?
	sed 's/^/# enobufs once: /' "$TOPO_DIR/enobufs1.err"
	ok "ENOBUFS on the first batch only: 71, naming ENOBUFS (got $r)" \
		sh -c "[ $r = 71 ] && grep -q 'error:.*ENOBUFS' '$TOPO_DIR/enobufs1.err'"
	ok "... no start without the block log's rules, the command never ran" \
		sh -c "! grep -q \"block log's rules\" '$TOPO_DIR/enobufs1.err' && [ ! -e '$TOPO_DIR/ran' ]"
else
	t_skip "ENOBUFS on the first batch only: strace is missing (tests/install-deps.sh installs it)"
fi
t_done
