#!/bin/sh
# Every prctl step of the privilege drop, refused by a seccomp policy around
# the init (deny_prctl), stops the start with 71 and the one line of that
# step, and the command never runs: run directly, and as PID 1, where the
# bounding set is emptied once before the fork.  Root only.
#
# usage: prctl_refused.sh PATH-TO-cli-sandbox-init PATH-TO-deny_prctl
set -u
INIT=$1
DENY=$2
. "$(cd "$(dirname "$0")/.." && pwd)/lib/tap.sh"
if [ "$(id -u)" != 0 ]; then echo "skip: needs root"; exit 77; fi
command -v unshare > /dev/null || { echo "skip: needs unshare"; exit 77; }

T=$(mktemp -d /tmp/cs-prctl.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
trap 'exit 1' INT TERM
chmod 755 "$T"
U=$(t_free_id 54321)
mkdir "$T/w" && chown "$U:$U" "$T/w"
ENV="PATH=/usr/local/bin:/usr/bin:/bin CLI_SANDBOX_EGRESS_PROFILE=interactive SKIP_EGRESS_FIREWALL=true CLI_SANDBOX_USER=$U:$U"
[ -n "${ASAN_OPTIONS:-}" ] && ENV="$ENV ASAN_OPTIONS=$ASAN_OPTIONS"

# case NAME OPTION ERRNO LINE: the start under a filter failing prctl(OPTION)
# with ERRNO must exit 71 with exactly one error line, matching LINE.
case_() {
	name=$1 option=$2 errno=$3 line=$4
	for how in direct pid1; do
		if [ "$how" = pid1 ]; then pre="unshare --pid --fork --kill-child --mount-proc"; else pre=; fi
		n=$name-$how
		# shellcheck disable=SC2086
		timeout 60 $pre "$DENY" "$option" "$errno" env -i $ENV "$INIT" -- sh -c "touch $T/w/$n" > "$T/$n.out" 2> "$T/$n.err"
		echo $? > "$T/$n.rc"
		grep 'error:' "$T/$n.err" | sed "s/^/# $n: /"
		ok "$n: 71" [ "$(cat "$T/$n.rc")" = 71 ]
		ok "$n: one error line: $line" sh -c "[ \"\$(grep -c 'error:' '$T/$n.err')\" = 1 ] && grep -q 'error:.*$line' '$T/$n.err'"
		ok "$n: the command did not run" [ ! -e "$T/w/$n" ]
	done
}

# prctl options (linux/prctl.h) and errno values
PR_CAPBSET_READ=23 PR_CAPBSET_DROP=24 PR_SET_SECUREBITS=28 PR_SET_NO_NEW_PRIVS=38 PR_CAP_AMBIENT=47
EPERM=1 EACCES=13
case_ bset-drop $PR_CAPBSET_DROP $EPERM 'emptying the capability bounding set failed (PR_CAPBSET_DROP(0): Operation not permitted)'
case_ bset-read $PR_CAPBSET_READ $EACCES 'PR_CAPBSET_READ cannot list the capabilities (Permission denied)'
case_ securebits $PR_SET_SECUREBITS $EPERM 'locking the securebits'
case_ ambient $PR_CAP_AMBIENT $EPERM 'clearing the ambient capabilities failed (Operation not permitted)'
case_ nnp $PR_SET_NO_NEW_PRIVS $EPERM 'setting no_new_privs failed (Operation not permitted)'

# The control: the same start without a refusal runs the command.
# shellcheck disable=SC2086
timeout 60 env -i $ENV "$INIT" -- sh -c "touch $T/w/control" > /dev/null 2>&1
ok "control: the same start with nothing refused runs the command" [ -e "$T/w/control" ]
t_done
