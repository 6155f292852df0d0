#!/bin/sh
# The seccomp filter (issue 11, finding 7), seen from the command: run
# directly and under the init as PID 1.  It denies AF_VSOCK and every other
# address family but UNIX, INET, INET6 and NETLINK (ROUTE, SOCK_DIAG and
# KOBJECT_UEVENT only), and by default the creation of user namespaces
# (unshare/clone with CLONE_NEWUSER: EPERM; clone3: ENOSYS, so libc falls
# back to clone); CLI_SANDBOX_ALLOW_USERNS=true re-allows user namespaces.
# Before the fix every probe here succeeded.  Root only.
#
# usage: seccomp.sh PATH-TO-cli-sandbox-init [PATH-TO-deny_seccomp]
set -u
INIT=$1
DENY=${2:-}
. "$(cd "$(dirname "$0")/.." && pwd)/lib/tap.sh"

if [ "$(id -u)" != 0 ]; then echo "skip: needs root"; exit 77; fi
for tool in unshare timeout /usr/bin/python3; do
	command -v $tool > /dev/null || { echo "skip: needs $tool"; exit 77; }
done

T=$(mktemp -d /tmp/cs-seccomp.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
trap 'exit 1' INT TERM
chmod 755 "$T"
U=$(t_free_id 54321)

# One line per probe: "NAME ok" or "NAME ERRNO-NAME".
cat > "$T/probe.py" <<'EOS'
import ctypes, errno, os, socket, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def sock(name, *args):
    try:
        socket.socket(*args).close()
        print(name, "ok")
    except OSError as e:
        print(name, errno.errorcode.get(e.errno, e.errno))
def raw(name, nr, *args):
    r = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) for a in args])
    e = ctypes.get_errno()
    if r >= 0 and name.startswith("socket"):
        os.close(r)
    print(name, "ok" if r >= 0 else errno.errorcode.get(e, e))
sock("unix", socket.AF_UNIX, socket.SOCK_STREAM)
sock("inet", socket.AF_INET, socket.SOCK_STREAM)
sock("inet6", socket.AF_INET6, socket.SOCK_DGRAM)
sock("netlink_route", socket.AF_NETLINK, socket.SOCK_RAW, 0)
sock("netlink_netfilter", socket.AF_NETLINK, socket.SOCK_RAW, 12)
sock("vsock", 40, socket.SOCK_STREAM)
sock("packet", 17, socket.SOCK_DGRAM)
sock("alg", 38, socket.SOCK_SEQPACKET)
sock("key", 15, socket.SOCK_RAW, 2)  # AF_KEY, PF_KEY_V2: a family below AF_NETLINK
sock("netlink_xfrm", socket.AF_NETLINK, socket.SOCK_RAW, 6)
# socket(AF_VSOCK) with garbage in the upper half of the register: the
# kernel reads an int, so the filter must compare 32 bits only.
raw("socket_vsock_highbits", 41, (1 << 32) | 40, 1, 0)
raw("unshare_user", 272, 0x10000000)
raw("clone3", 435, 0, 0)
r = os.fork()  # glibc fork() is clone() without CLONE_NEWUSER: allowed
if r == 0:
    os._exit(0)
os.waitpid(r, 0)
print("fork ok")
print("seccomp", open("/proc/self/status").read().split("Seccomp:")[1].split()[0])
print("init_seccomp", open("/proc/1/status").read().split("Seccomp:")[1].split()[0])
EOS
chmod 644 "$T/probe.py"

ENV="PATH=/usr/local/bin:/usr/bin:/bin CLI_SANDBOX_EGRESS_PROFILE=interactive SKIP_EGRESS_FIREWALL=true CLI_SANDBOX_USER=$U:$U"
[ -n "${ASAN_OPTIONS:-}" ] && ENV="$ENV ASAN_OPTIONS=$ASAN_OPTIONS"
run() {  # run NAME pid1|direct [VAR=VALUE...] -- COMMAND...
	name=$1 how=$2
	shift 2
	vars=
	while [ "$1" != -- ]; do vars="$vars $1"; shift; done
	shift
	if [ "$how" = pid1 ]; then pre="unshare --pid --fork --kill-child --mount-proc"; else pre=; fi
	# shellcheck disable=SC2086
	timeout 60 $pre env -i $ENV $vars "$INIT" -- "$@" > "$T/$name.out" 2> "$T/$name.err"
	echo $? > "$T/$name.rc"
	grep -v 'SKIP_EGRESS_FIREWALL=true' "$T/$name.err" | sed "s/^/# $name: /"
}
got() { awk -v k="$2" '$1 == k { print $2 }' "$T/$1.out"; }

for how in direct pid1; do
	run "$how" "$how" -- /usr/bin/python3 "$T/probe.py"
	ok "$how: the probe ran (exit 0)" [ "$(cat "$T/$how.rc")" = 0 ]
	for k in unix inet inet6 netlink_route; do
		ok "$how: $k sockets still work" [ "$(got "$how" $k)" = ok ]
	done
	ok "$how: AF_VSOCK is refused (EAFNOSUPPORT)" [ "$(got "$how" vsock)" = EAFNOSUPPORT ]
	ok "$how: AF_VSOCK with high bits set is refused too" [ "$(got "$how" socket_vsock_highbits)" = EAFNOSUPPORT ]
	ok "$how: AF_PACKET is refused (EAFNOSUPPORT)" [ "$(got "$how" packet)" = EAFNOSUPPORT ]
	ok "$how: AF_ALG is refused (EAFNOSUPPORT)" [ "$(got "$how" alg)" = EAFNOSUPPORT ]
	ok "$how: NETLINK_NETFILTER is refused (EPROTONOSUPPORT)" [ "$(got "$how" netlink_netfilter)" = EPROTONOSUPPORT ]
	ok "$how: NETLINK_XFRM is refused (EPROTONOSUPPORT)" [ "$(got "$how" netlink_xfrm)" = EPROTONOSUPPORT ]
	ok "$how: AF_KEY is refused (EAFNOSUPPORT)" [ "$(got "$how" key)" = EAFNOSUPPORT ]
	ok "$how: unshare(CLONE_NEWUSER) is refused (EPERM)" [ "$(got "$how" unshare_user)" = EPERM ]
	ok "$how: clone3 says ENOSYS, so libc falls back to clone" [ "$(got "$how" clone3)" = ENOSYS ]
	ok "$how: fork still works" grep -qx 'fork ok' "$T/$how.out"
	ok "$how: the command runs under a seccomp filter (Seccomp: 2)" [ "$(got "$how" seccomp)" = 2 ]
done
ok "pid1: PID 1 itself runs under the filter (Seccomp: 2)" [ "$(got pid1 init_seccomp)" = 2 ]

# The userns-creating tools see the refusal as such.
run unshare direct -- unshare --user true
ok "unshare --user fails under the default filter" [ "$(cat "$T/unshare.rc")" != 0 ]

# The opt-in: user namespaces again (where the host allows them at all).
if setpriv --reuid "$U" --regid "$U" --clear-groups unshare --user true 2> /dev/null; then
	run optin pid1 CLI_SANDBOX_ALLOW_USERNS=true -- /usr/bin/python3 "$T/probe.py"
	ok "opt-in: unshare(CLONE_NEWUSER) works" [ "$(got optin unshare_user)" = ok ]
	ok "opt-in: AF_VSOCK is still refused" [ "$(got optin vsock)" = EAFNOSUPPORT ]
	ok "opt-in: the command still runs under the filter" [ "$(got optin seccomp)" = 2 ]
	run optin-tool direct CLI_SANDBOX_ALLOW_USERNS=true -- unshare --user --map-root-user true
	ok "opt-in: unshare --user --map-root-user works" [ "$(cat "$T/optin-tool.rc")" = 0 ]
else
	echo "# the host refuses unprivileged user namespaces: opt-in cases skipped"
fi
run optfalse direct CLI_SANDBOX_ALLOW_USERNS=false -- /usr/bin/python3 "$T/probe.py"
ok "CLI_SANDBOX_ALLOW_USERNS=false: user namespaces refused" [ "$(got optfalse unshare_user)" = EPERM ]

# Fail closed: where the filter cannot be installed (the runtime refuses
# seccomp(2)), the start stops with 71 and one line; the command never runs.
if [ -n "$DENY" ]; then
	# the wrapper goes around the init, so not through run()
	for how in direct pid1; do
		if [ "$how" = pid1 ]; then pre="unshare --pid --fork --kill-child --mount-proc"; else pre=; fi
		# shellcheck disable=SC2086
		timeout 60 $pre env -i $ENV "$DENY" "$INIT" -- sh -c "touch $T/ran-$how" > "$T/deny-$how.out" 2> "$T/deny-$how.err"
		echo $? > "$T/deny-$how.rc"
		grep 'error:' "$T/deny-$how.err" | sed "s/^/# deny-$how: /"
		ok "$how: no filter possible: 71" [ "$(cat "$T/deny-$how.rc")" = 71 ]
		ok "$how: no filter possible: one error line about seccomp" \
			sh -c "[ \"\$(grep -c 'error:' '$T/deny-$how.err')\" = 1 ] && grep -q 'error:.*seccomp' '$T/deny-$how.err'"
		ok "$how: no filter possible: the command did not run" [ ! -e "$T/ran-$how" ]
	done
fi

# A bad value stops the start (78, one line), in both profiles.
for v in TRUE 1 yes ""; do
	run "bad$v" direct "CLI_SANDBOX_ALLOW_USERNS=$v" -- true
	ok "CLI_SANDBOX_ALLOW_USERNS='$v': 78" [ "$(cat "$T/bad$v.rc")" = 78 ]
	ok "CLI_SANDBOX_ALLOW_USERNS='$v': one error line naming the variable" \
		[ "$(grep -c 'error:.*CLI_SANDBOX_ALLOW_USERNS' "$T/bad$v.err")" = 1 ]
done
t_done
