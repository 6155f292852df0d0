#!/bin/sh
# The privilege drop, read back from the command's own /proc/self/status,
# under the starting capability sets a container really gets.  Root only.
#
# usage: privileges.sh PATH-TO-cli-sandbox-init [managed]
#   without "managed": interactive profile, SKIP_EGRESS_FIREWALL=true
#   with "managed": the managed profile with its real firewall, inside a
#   throwaway network namespace, so nothing of the host is touched
set -u
INIT=$1
. "$(cd "$(dirname "$0")/.." && pwd)/lib/tap.sh"
MODE=${2:-interactive}

if [ "$(id -u)" != 0 ]; then echo "skip: needs root"; exit 77; fi
command -v setpriv > /dev/null || { echo "skip: needs setpriv (util-linux)"; exit 77; }
if [ "$MODE" = managed ]; then
	command -v ip > /dev/null || { echo "skip: needs ip (iproute2)"; exit 77; }
	command -v nft > /dev/null || { echo "skip: needs nft to read the ruleset back"; exit 77; }
fi

T=$(mktemp -d /tmp/cs-caps.XXXXXX) || exit 1
NS=
cleanup() {
	[ -n "$NS" ] && ip netns delete "$NS" 2> /dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
chmod 755 "$T"

# A uid and gid that no passwd or group entry names, so the expected groups
# are exactly the primary group plus what the test adds.
U=$(t_free_id 54321)
mkdir "$T/w" && chown "$U:$U" "$T/w"


field() {  # field FILE NAME: the value(s) of a /proc/PID/status line
	sed -n "s/^$2:[[:space:]]*//p" "$1" | tr -s '\t ' '  ' | sed 's/ *$//'
}
hex_is_zero() { [ "$(field "$1" "$2")" = 0000000000000000 ]; }
hex_within() {  # hex_within FILE NAME MASK: no bit outside MASK
	v=$(field "$1" "$2")
	[ -n "$v" ] && [ $((0x$v & ~$3)) -eq 0 ]
}

if [ "$MODE" = managed ]; then
	NS=cs-caps-$$
	ip netns add "$NS" || { echo "not ok - ip netns add"; exit 1; }
	IN_NS="ip netns exec $NS"
	PROFILE_ENV="TASK_AGENT_MODEL_BASE_URL=http://192.0.2.1:8080"
else
	IN_NS=
	PROFILE_ENV="CLI_SANDBOX_EGRESS_PROFILE=interactive SKIP_EGRESS_FIREWALL=true"
fi

# start NAME USER PREFIX... -- COMMAND...: runs the init under PREFIX (a
# setpriv that shapes the starting credentials), output in $T/NAME.{out,err,rc}
start() {
	name=$1
	user=$2
	shift 2
	prefix=
	while [ "$1" != -- ]; do prefix="$prefix $1"; shift; done
	shift
	# shellcheck disable=SC2086  # word splitting of the prefix is intended
	timeout 30 $IN_NS env -i PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin \
		${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} $PROFILE_ENV CLI_SANDBOX_USER="$user" \
		$prefix "$INIT" -- "$@" > "$T/$name.out" 2> "$T/$name.err"
	echo $? > "$T/$name.rc"
	sed "s/^/# $name: /" "$T/$name.err"
}
rc() { cat "$T/$1.rc"; }

# Every assertion about a dropped command, from its /proc/self/status.
expect_dropped() {  # expect_dropped NAME UID GID
	s=$T/$1.out
	ok "$1: the init ran the command (exit 0)" [ "$(rc "$1")" = 0 ]
	for set in CapInh CapPrm CapEff CapAmb; do
		ok "$1: $set is empty" hex_is_zero "$s" $set
	done
	ok "$1: NoNewPrivs is 1" [ "$(field "$s" NoNewPrivs)" = 1 ]
	ok "$1: real, effective, saved and fs uid are $2" [ "$(field "$s" Uid)" = "$2 $2 $2 $2" ]
	ok "$1: real, effective, saved and fs gid are $3" [ "$(field "$s" Gid)" = "$3 $3 $3 $3" ]
}

CAPS_DOCKER=chown,dac_override,fowner,fsetid,kill,setgid,setuid,setpcap,net_bind_service,net_raw,sys_chroot,mknod,audit_write,setfcap
# bit numbers: chown 0, dac_override 1, fowner 3, fsetid 4, kill 5, setgid 6,
# setuid 7, setpcap 8, net_bind_service 10, net_raw 13, sys_chroot 18,
# mknod 27, audit_write 29, setfcap 31, net_admin 12
MASK_DOCKER_NETADMIN=$(((1 << 0) | (1 << 1) | (1 << 3) | (1 << 4) | (1 << 5) | (1 << 6) | (1 << 7) | (1 << 8) |
	(1 << 10) | (1 << 12) | (1 << 13) | (1 << 18) | (1 << 27) | (1 << 29) | (1 << 31)))
MASK_MINIMAL=$(((1 << 6) | (1 << 7) | (1 << 12)))
DOCKER="setpriv --inh-caps=-all --bounding-set=-all,+$(echo "$CAPS_DOCKER" | sed 's/,/,+/g'),+net_admin"
MINIMAL="setpriv --inh-caps=-all --bounding-set=-all,+net_admin,+setuid,+setgid"

# 0. The harness really produces the starting sets (root's permitted set
#    after exec is its bounding set).
for case in docker minimal; do
	[ $case = docker ] && { p=$DOCKER; m=$MASK_DOCKER_NETADMIN; } || { p=$MINIMAL; m=$MASK_MINIMAL; }
	$p cat /proc/self/status > "$T/control-$case"
	ok "control: setpriv gives exactly the $case set" \
		[ $((0x$(field "$T/control-$case" CapEff))) -eq $m ]
done

# 1. Full root (privileged, every capability).
start root "$U:$U" -- cat /proc/self/status
expect_dropped root "$U" "$U"
ok "root: CapBnd is empty (CAP_SETPCAP was held)" hex_is_zero "$T/root.out" CapBnd
ok "root: Groups is exactly $U" [ "$(field "$T/root.out" Groups)" = "$U" ]

# 2. Docker's default set plus NET_ADMIN.
start docker "$U:$U" $DOCKER -- cat /proc/self/status
expect_dropped docker "$U" "$U"
ok "docker: CapBnd is empty (CAP_SETPCAP was held)" hex_is_zero "$T/docker.out" CapBnd

# 3. Exactly NET_ADMIN, SETUID, SETGID: no CAP_SETPCAP, so the bounding set
#    cannot be emptied; it holds nothing beyond what the container had.
start minimal "$U:$U" $MINIMAL -- cat /proc/self/status
expect_dropped minimal "$U" "$U"
ok "minimal: CapBnd is within NET_ADMIN|SETUID|SETGID" hex_within "$T/minimal.out" CapBnd $MASK_MINIMAL
ok "minimal: the init says the bounding set is left to no_new_privs" grep -q "CAP_SETPCAP was not granted" "$T/minimal.err"

# 4. Groups the container started with: 4242 (--group-add) kept, 0 dropped.
start groups "$U:$U" setpriv --groups 0,4242 -- cat /proc/self/status
expect_dropped groups "$U" "$U"
ok "groups: Groups is exactly 4242 $U (0 dropped, 4242 kept)" [ "$(field "$T/groups.out" Groups)" = "4242 $U" ]
start groups-min "$U:$U" $MINIMAL --groups 0,4242,4243 -- cat /proc/self/status
ok "groups-min: Groups is 4242 4243 $U under the minimal set too" [ "$(field "$T/groups-min.out" Groups)" = "4242 4243 $U" ]

# 5. A user by name, from the real /etc/passwd and /etc/group.
if NOBODY=$(awk -F: '$1 == "nobody" { print $3 ":" $4 }' /etc/passwd) && [ -n "$NOBODY" ] &&
	[ "${NOBODY%:*}" != 0 ] && [ "${NOBODY#*:}" != 0 ]; then
	nuid=${NOBODY%:*}
	ngid=${NOBODY#*:}
	want=$( { echo "$ngid"; awk -F: '{ n = split($4, m, ","); for (i = 1; i <= n; i++) if (m[i] == "nobody") print $3 }' /etc/group; } |
		sort -n -u | tr '\n' ' ' | sed 's/ *$//')
	start nobody nobody -- cat /proc/self/status
	expect_dropped nobody "$nuid" "$ngid"
	ok "nobody: Groups is the user's own ($want)" [ "$(field "$T/nobody.out" Groups)" = "$want" ]
fi

# 6. The command runs dumpable, so its /proc/PID belongs to the user, and
#    it can find programs in PATH after the drop.
start self "$U:$U" -- sh -c 'stat -c %u /proc/$$; id -u'
ok "self: the command's /proc/PID is owned by $U (dumpable after exec)" [ "$(sed -n 1p "$T/self.out")" = "$U" ]
ok "self: PATH lookup after the drop found id, which reports $U" [ "$(sed -n 2p "$T/self.out")" = "$U" ]

# 7. Without CAP_SETUID / CAP_SETGID: 71, one line naming the fix, the
#    command never ran.
for missing in setuid setgid setuid,-setgid; do
	name=no-$(echo "$missing" | tr -d ,-)
	start "$name" "$U:$U" setpriv --inh-caps=-all --bounding-set=-$missing -- sh -c "touch $T/w/$name.marker"
	ok "$name: exit 71" [ "$(rc "$name")" = 71 ]
	ok "$name: the command did not run" [ ! -e "$T/w/$name.marker" ]
	ok "$name: the error names --cap-add=SETUID --cap-add=SETGID" grep -q -- "--cap-add=SETUID --cap-add=SETGID" "$T/$name.err"
	ok "$name: exactly one error line" [ "$(grep -c 'error:' "$T/$name.err")" = 1 ]
done

# 8. The control case: the same marker command does run when allowed.
start marker "$U:$U" $MINIMAL -- sh -c "touch $T/w/ran.marker"
ok "marker: with SETUID/SETGID the same command ran" [ -e "$T/w/ran.marker" ]

if [ "$MODE" = managed ]; then
	# The firewall is up in the namespace, and the drop happened after it.
	ok "managed: the firewall table exists in the test namespace" sh -c "ip netns exec $NS nft list tables | grep -q ."
	ok "managed: the init logged the firewall before the drop" grep -q "firewall up" "$T/root.err"
fi

t_done
