#!/bin/sh
# The init as PID 1 of a fresh pid namespace (unshare --pid --fork
# --mount-proc), and the direct exec when it is not PID 1.  Root only.
#
# usage: pid1.sh PATH-TO-cli-sandbox-init
set -u
INIT=$1
. "$(cd "$(dirname "$0")/.." && pwd)/lib/tap.sh"

if [ "$(id -u)" != 0 ]; then echo "skip: needs root"; exit 77; fi
for tool in unshare script setpriv timeout; do
	command -v $tool > /dev/null || { echo "skip: needs $tool"; exit 77; }
done

T=$(mktemp -d /tmp/cs-pid1.XXXXXX) || exit 1
BGPID=  # the background run in progress, if any
cleanup() {
	# A run still going (a failed test): kill its namespace's init, which
	# ends every process in that namespace; timeout and unshare then return.
	if [ -n "$BGPID" ] && kill -0 "$BGPID" 2> /dev/null; then
		p=$(ns_init_of "$BGPID") && kill -KILL "$p"
	fi
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
chmod 755 "$T"

U=$(t_free_id 54321)
W=$T/w  # written by the command, as the user
mkdir "$W" && chown "$U:$U" "$W"


ENV="PATH=/usr/local/bin:/usr/bin:/bin CLI_SANDBOX_EGRESS_PROFILE=interactive SKIP_EGRESS_FIREWALL=true CLI_SANDBOX_USER=$U:$U"
[ -n "${ASAN_OPTIONS:-}" ] && ENV="$ENV ASAN_OPTIONS=$ASAN_OPTIONS"
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# pid1 NAME COMMAND...: runs the init as PID 1 of a new pid namespace;
# output in $T/NAME.{out,err}, exit status in $T/NAME.rc, time in $T/NAME.ms
pid1() {
	name=$1
	shift
	t0=$(now_ms)
	# shellcheck disable=SC2086
	timeout 60 unshare --pid --fork --kill-child --mount-proc env -i $ENV "$INIT" -- "$@" > "$T/$name.out" 2> "$T/$name.err"
	echo $? > "$T/$name.rc"
	t1=$(now_ms)
	echo $((t1 - t0)) > "$T/$name.ms"
	echo "$t1" > "$T/$name.end"
	grep -v 'SKIP_EGRESS_FIREWALL=true' "$T/$name.err" | sed "s/^/# $name: /"
}
# direct NAME COMMAND...: the same without a pid namespace (not PID 1)
direct() {
	name=$1
	shift
	# shellcheck disable=SC2086
	timeout 60 env -i $ENV "$INIT" -- "$@" > "$T/$name.out" 2> "$T/$name.err"
	echo $? > "$T/$name.rc"
	grep -v 'SKIP_EGRESS_FIREWALL=true' "$T/$name.err" | sed "s/^/# $name: /"
}
rc() { cat "$T/$1.rc"; }
ms() { cat "$T/$1.ms"; }
# after_exit NAME: ms from the command's last act (it wrote date +%s%N to
# $W/NAME.t just before it exited) to the init's exit: what the init itself
# took, without the start-up that a loaded machine stretches
after_exit() { echo $(($(cat "$T/$1.end") - $(cat "$W/$1.t") / 1000000)); }
out() { cat "$T/$1.out"; }
errors() { grep -c 'error:' "$T/$1.err"; }

wait_file() {  # wait_file PATH: up to 30 s (ends as soon as it is there)
	i=0
	while [ ! -e "$1" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
	[ -e "$1" ]
}
# ns_init_of PID: the host pid of the new namespace's PID 1 among PID's
# descendants: the first whose NSpid line has one level more than ours and
# ends in 1 (this script may itself run in a container's pid namespace)
LEVELS=$(awk '/^NSpid:/ { print NF }' /proc/self/status)
ns_init_of() {
	todo=$1
	while [ -n "$todo" ]; do
		set -- $todo
		p=$1
		shift
		todo="$* $(cat /proc/"$p"/task/*/children 2> /dev/null)"
		todo=$(echo $todo)
		if awk -v n=$((LEVELS + 1)) '/^NSpid:/ { exit !(NF == n && $NF == 1) }' /proc/"$p"/status 2> /dev/null; then
			echo "$p"
			return 0
		fi
	done
	return 1
}
# bg_pid1 NAME COMMAND...: like pid1, in the background; sets BGPID
bg_pid1() {
	name=$1
	shift
	# shellcheck disable=SC2086
	(timeout 60 unshare --pid --fork --kill-child --mount-proc env -i $ENV "$INIT" -- "$@" > "$T/$name.out" 2> "$T/$name.err"
	 echo $? > "$T/$name.rc") &
	BGPID=$!
}
wait_rc() {  # wait_rc NAME: up to 60 s for the background run's status
	i=0
	while [ ! -s "$T/$1.rc" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
	if [ ! -s "$T/$1.rc" ]; then  # hung: end its namespace
		p=$(ns_init_of "$BGPID") && kill -KILL "$p"
	fi
	wait "$BGPID"
	BGPID=
	grep -v 'SKIP_EGRESS_FIREWALL=true' "$T/$1.err" | sed "s/^/# $1: /"
}

# 1. Exit statuses propagate.
pid1 exit0 sh -c 'exit 0'
ok "exit 0 propagates" [ "$(rc exit0)" = 0 ]
pid1 exit3 sh -c 'exit 3'
ok "exit 3 propagates" [ "$(rc exit3)" = 3 ]
pid1 killed sh -c 'kill -TERM $$'
ok "a command killed by SIGTERM gives 143" [ "$(rc killed)" = 143 ]
pid1 killed9 sh -c 'kill -KILL $$'
ok "a command killed by SIGKILL gives 137" [ "$(rc killed9)" = 137 ]

# 2. The command is the init's child, in its own process group, as the user.
pid1 tree sh -c 'echo "pid=$$ ppid=$PPID"; read -r a b c d pgrp rest < /proc/$$/stat; echo "pgrp=$pgrp"'
ok "the init is PID 1 and the command its child (pid 2)" grep -qx 'pid=2 ppid=1' "$T/tree.out"
ok "the command leads its own process group" grep -qx 'pgrp=2' "$T/tree.out"

# 3. No process in the namespace runs as uid 0; the init itself is not
#    dumpable, so the command cannot read its environment or memory.
pid1 uids sh -c '
	n=0 root=0
	for f in /proc/[0-9]*/status; do
		u=$(awk "/^Uid:/ { print \$2, \$3, \$4, \$5 }" "$f" 2> /dev/null) || continue
		[ -n "$u" ] || continue
		n=$((n + 1))
		for id in $u; do [ "$id" = 0 ] && root=$((root + 1)); done
	done
	echo "procs=$n root=$root"
	echo "init=$(awk "/^Uid:/ { print \$2, \$3, \$4, \$5 }" /proc/1/status)"
	if cat /proc/1/environ > /dev/null 2>&1; then echo environ=readable; else echo environ=denied; fi'
ok "processes seen from inside: init, the command and its helpers" sh -c "grep -q '^procs=[2-9]' '$T/uids.out'"
ok "no process in the namespace has uid 0 (real, effective, saved or fs)" grep -q 'root=0$' "$T/uids.out"
ok "the init (PID 1) runs as $U" grep -qx "init=$U $U $U $U" "$T/uids.out"
ok "the command cannot read the init's /proc/1/environ (init not dumpable)" grep -qx 'environ=denied' "$T/uids.out"

# 3b. Both processes dropped everything, from the kernel's view: the
#     command and PID 1 hold no capability in any set, both bounding sets are
#     empty (emptied once, before the fork) and no_new_privs is set.
pid1 caps sh -c 'for p in self 1; do grep -E "^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs):" /proc/$p/status | sed "s/^/$p /"; done'
for who in self 1; do
	[ $who = self ] && name="the command" || name="PID 1"
	for set in CapInh CapPrm CapEff CapBnd CapAmb; do
		ok "$name: $set is empty" grep -q "^$who $set:[[:space:]]*0000000000000000$" "$T/caps.out"
	done
	ok "$name: NoNewPrivs is 1" grep -q "^$who NoNewPrivs:[[:space:]]*1$" "$T/caps.out"
done

# 4. Orphans are reaped: 20 double-forked children outlive their parents.
#    Counted by parent (PPid 1, the command aside), not by name (a child
#    may not have exec'd sleep yet); they live until the command kills them,
#    not for a time that a loaded machine could outrun; then the command
#    waits (up to 30 s, ending as soon as it is true) until every one is
#    gone and reaped: a zombie left behind keeps the loop going to its end.
pid1 zombies sh -c '
	orphans() {
		for f in /proc/[0-9]*/status; do
			[ "$f" = "/proc/$$/status" ] && continue
			grep -q "^PPid:[[:space:]]*1$" "$f" 2> /dev/null && ! grep -q "^State:[[:space:]]*Z" "$f" 2> /dev/null &&
				{ f=${f#/proc/}; echo "${f%/status}"; }
		done
	}
	zombies() { grep -l "^State:[[:space:]]*Z" /proc/[0-9]*/status 2> /dev/null | wc -l; }
	for i in $(seq 20); do (sleep 300 &); done
	set -- $(orphans)
	echo "orphans=$#"
	kill "$@"
	i=0
	while { [ "$(zombies)" -ne 0 ] || [ -n "$(orphans)" ]; } && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
	echo "zombies=$(zombies) left=$(orphans | wc -l)"'
ok "20 orphans were re-parented to the init" grep -qx 'orphans=20' "$T/zombies.out"
ok "after they exit, no zombie remains" grep -qx 'zombies=0 left=0' "$T/zombies.out"
ok "the command's own status still comes through (0)" [ "$(rc zombies)" = 0 ]

# 5. Signals from outside reach the command (TERM trapped, its own status).
bg_pid1 term sh -c "trap 'echo got-term > $W/term; exit 42' TERM; echo > $W/term-ready; while :; do sleep 0.1; done"
wait_file "$W/term-ready"
INITPID=$(ns_init_of "$BGPID")
ok "found the init's host pid" [ -n "$INITPID" ]
[ -n "$INITPID" ] && kill -TERM "$INITPID"
wait_rc term
ok "SIGTERM from outside reached the command's trap" grep -qx got-term "$W/term" 2> /dev/null
ok "the command's own status (42) is the init's" [ "$(rc term)" = 42 ]

# ... an untrapped TERM kills it: 143; INT: 130
for sig in TERM INT; do
	bg_pid1 "sig$sig" sh -c "echo > $W/sig$sig-ready; exec sleep 30"
	wait_file "$W/sig$sig-ready"
	sleep 0.2  # let the exec happen
	INITPID=$(ns_init_of "$BGPID")
	[ -n "$INITPID" ] && kill -"$sig" "$INITPID"
	wait_rc "sig$sig"
done
ok "SIGTERM from outside kills an untrapping command: 143" [ "$(rc sigTERM)" = 143 ]
ok "SIGINT from outside kills an untrapping command: 130" [ "$(rc sigINT)" = 130 ]

# ... and goes to the command's whole process group (a pipeline, a subshell).
bg_pid1 group sh -c "
	trap 'echo shell >> $W/usr1' USR1
	(trap 'echo subshell >> $W/usr1; exit 0' USR1; echo > $W/group-ready; while :; do sleep 0.1; done) &
	wait; wait; exit 9"
wait_file "$W/group-ready"
INITPID=$(ns_init_of "$BGPID")
[ -n "$INITPID" ] && kill -USR1 "$INITPID"
wait_rc group
ok "SIGUSR1 reached the shell and its subshell (the process group)" \
	sh -c "grep -qx shell '$W/usr1' && grep -qx subshell '$W/usr1'"
ok "status 9 after the forwarded signal" [ "$(rc group)" = 9 ]

# 6. When the command exits, leftovers are signalled and the init exits promptly.
# "Promptly" is measured from the command's exit (after_exit), and below
# the 2 s grace that a leftover that did not die would cost.
pid1 leftover sh -c "sleep 300 & date +%s%N > $W/leftover.t; exit 5"
ok "a leftover sleep: status 5" [ "$(rc leftover)" = 5 ]
ok "a leftover sleep: the init exits promptly ($(after_exit leftover) ms after the command < 1500)" \
	[ "$(after_exit leftover)" -lt 1500 ]

pid1 leftover-term sh -c "
	(trap 'echo got-term > $W/left; exit 0' TERM; echo > $W/left-ready; while :; do sleep 0.1; done) &
	while [ ! -e $W/left-ready ]; do sleep 0.05; done; date +%s%N > $W/leftover-term.t; exit 6"
ok "a leftover with a TERM trap: status 6" [ "$(rc leftover-term)" = 6 ]
ok "a leftover with a TERM trap got SIGTERM from the init" grep -qx got-term "$W/left" 2> /dev/null
ok "a leftover with a TERM trap: the init exits promptly ($(after_exit leftover-term) ms after the command < 1500)" \
	[ "$(after_exit leftover-term)" -lt 1500 ]

pid1 leftover-stopped sh -c "
	(trap 'echo got-term > $W/stopped; exit 0' TERM; echo > $W/stopped-ready; while :; do sleep 0.1; done) &
	while [ ! -e $W/stopped-ready ]; do sleep 0.05; done; kill -STOP \$!; date +%s%N > $W/leftover-stopped.t; exit 7"
ok "a stopped leftover: status 7" [ "$(rc leftover-stopped)" = 7 ]
ok "a stopped leftover was continued and ran its TERM trap" grep -qx got-term "$W/stopped" 2> /dev/null
ok "a stopped leftover: no wait for SIGKILL ($(after_exit leftover-stopped) ms after the command < 1500)" \
	[ "$(after_exit leftover-stopped)" -lt 1500 ]

pid1 leftover-stubborn sh -c "(trap '' TERM; echo > $W/stubborn-ready; exec sleep 300) &
	while [ ! -e $W/stubborn-ready ]; do sleep 0.05; done; date +%s%N > $W/leftover-stubborn.t; exit 8"
ok "a leftover ignoring SIGTERM: status 8" [ "$(rc leftover-stubborn)" = 8 ]
# At least the grace (a wait, which load only lengthens); at most grace,
# the 1 s after SIGKILL and a wide margin: no hang.
ok "a leftover ignoring SIGTERM: SIGKILL after the 2 s grace ($(after_exit leftover-stubborn) ms after the command, in 1900..10000)" \
	sh -c "[ $(after_exit leftover-stubborn) -ge 1900 ] && [ $(after_exit leftover-stubborn) -lt 10000 ]"

# 7. The command starts with the init's original signal mask, default
#    dispositions for what the init forwards, blocks or ignores (HUP INT
#    QUIT USR1 USR2 TERM CHLD CONT TSTP TTIN TTOU WINCH), and any other
#    disposition as a plain start would have it.  grep reads its own status
#    (a shell would show the mask it holds while waiting for a child).
sigfield() { sed -n "s/^$2:[[:space:]]*//p" "$1"; }
INIT_SIGS=$(((1 << 0) | (1 << 1) | (1 << 2) | (1 << 9) | (1 << 11) | (1 << 14) | (1 << 16) | (1 << 17) |
	(1 << 19) | (1 << 20) | (1 << 21) | (1 << 27)))
timeout 60 env -i grep -E "^Sig(Blk|Ign):" /proc/self/status > "$T/sig-control"  # same wrapper as direct()
pid1 sigs grep -E "^Sig(Blk|Ign):" /proc/self/status
direct sigs-direct grep -E "^Sig(Blk|Ign):" /proc/self/status
ok "PID 1 path: the command's signal mask is the one the init started with" \
	[ "$(sigfield "$T/sigs.out" SigBlk)" = "$(sigfield "$T/sig-control" SigBlk)" ]
ok "PID 1 path: ignored signals are a plain start's minus the init's own" \
	[ $((0x$(sigfield "$T/sigs.out" SigIgn))) -eq $((0x$(sigfield "$T/sig-control" SigIgn) & ~INIT_SIGS)) ]
ok "direct path: the command's SigBlk/SigIgn match a plain start" cmp -s "$T/sig-control" "$T/sigs-direct.out"
bg_pid1 sigs-bg grep -E "^Sig(Blk|Ign):" /proc/self/status
wait_rc sigs-bg
ok "PID 1 path started in the background (SIGINT ignored): INT is default in the command" \
	[ $((0x$(sigfield "$T/sigs-bg.out" SigIgn) & (1 << 1))) -eq 0 ]

# 8. Exec failures: 127 not found, 126 not executable, one error line.
printf '#!/bin/sh\necho should-not-run\n' > "$T/noexec"
chmod 644 "$T/noexec"
for how in pid1 direct; do
	$how "$how-missing-path" /nonexistent/command
	ok "$how: a missing path gives 127" [ "$(rc "$how-missing-path")" = 127 ]
	ok "$how: ... with exactly one error line" [ "$(errors "$how-missing-path")" = 1 ]
	$how "$how-missing-name" cs-no-such-command-here
	ok "$how: a name not in PATH gives 127" [ "$(rc "$how-missing-name")" = 127 ]
	ok "$how: ... and the error says PATH" grep -q 'not found in PATH' "$T/$how-missing-name.err"
	$how "$how-noexec" "$T/noexec"
	ok "$how: a non-executable file gives 126" [ "$(rc "$how-noexec")" = 126 ]
	ok "$how: ... with exactly one error line, and it did not run" \
		sh -c "[ \"\$(grep -c 'error:' '$T/$how-noexec.err')\" = 1 ] && ! grep -q should-not-run '$T/$how-noexec.out'"
done

# 9. Not PID 1: the init execs the command, which keeps the init's pid.
env -i $ENV "$INIT" -- sh -c "echo \$\$ > $W/direct-pid; exit 4" > /dev/null 2>&1 &
DPID=$!
wait_file "$W/direct-pid"
i=0
while kill -0 "$DPID" 2> /dev/null && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
kill -0 "$DPID" 2> /dev/null && kill -KILL "$DPID"  # still ours: not yet waited for
wait "$DPID"
DRC=$?
ok "not PID 1: the command's pid is the init's pid (exec, no fork)" [ "$(cat "$W/direct-pid" 2> /dev/null)" = "$DPID" ]
ok "not PID 1: the command's status (4) is the process's" [ "$DRC" = 4 ]

# 10. A terminal: an interactive shell under the init gets the terminal's
#     foreground and job control, and runs what is typed at it.
cat > "$T/rc.bash" << 'EOF'
PS1='$ '
read -r a b c d pgrp e f tpgid rest < /proc/$$/stat
echo "SHELL-PG=$pgrp TPG=$tpgid"
[[ -o monitor ]] && echo "MONITOR=on"
EOF
chmod 644 "$T/rc.bash"
# shellcheck disable=SC2016  # typed at the shell, expanded there
printf '%s\n' 'sleep 30 &' \
	'read -r a b c d jpg rest < /proc/$!/stat; echo "JOB-PG=$jpg SHELL-PG=$pgrp"' \
	'jobs' 'kill %1' 'echo "TYPED=$((6 * 7))"' 'exit 7' |
	timeout 30 script -qec "unshare --pid --fork --kill-child --mount-proc env -i $ENV TERM=dumb $INIT -- bash --rcfile $T/rc.bash -i" /dev/null \
	> "$T/tty.out" 2>&1
echo $? > "$T/tty.rc"
tr -d '\r' < "$T/tty.out" > "$T/tty.txt"
sed 's/^/# tty: /' "$T/tty.txt"
ok "tty: the shell's group is the terminal's foreground group" sh -c "grep -q '^SHELL-PG=\([0-9]*\) TPG=\1$' '$T/tty.txt'"
ok "tty: job control (monitor) is on" grep -q '^MONITOR=on' "$T/tty.txt"
ok "tty: no 'no job control' complaint" sh -c "! grep -qi 'no job control' '$T/tty.txt'"
ok "tty: a background job gets its own process group" \
	sh -c "grep '^JOB-PG=' '$T/tty.txt' | awk '{ split(\$1, a, \"=\"); split(\$2, b, \"=\"); exit !(a[2] != b[2] && a[2] > 0) }'"
ok "tty: jobs lists it" grep -q 'Running.*sleep 30' "$T/tty.txt"
ok "tty: the shell ran what was typed at the terminal (no SIGTTIN stop)" grep -q '^TYPED=42' "$T/tty.txt"
ok "tty: the shell's exit status (7) comes through" [ "$(cat "$T/tty.rc")" = 7 ]

t_done
