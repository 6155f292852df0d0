#!/bin/sh
# The seccomp filter (issue 11, finding 7), seen from the command: run
# directly and under the init as PID 1.  It denies AF_VSOCK and every other
# address family but UNIX, INET, INET6 and NETLINK (ROUTE, SOCK_DIAG and
# KOBJECT_UEVENT only), and by default the creation of user namespaces
# (unshare/clone with CLONE_NEWUSER: EPERM; clone3: ENOSYS, so libc falls
# back to clone); CLI_SANDBOX_ALLOW_USERNS=true re-allows user namespaces.
# io_uring, bpf, keyctl, userfaultfd, perf_event_open and the i386 and x32
# ABIs stay denied in both variants (issue 13: the filter is now a program
# embedded at build time, so every denial is proved here by behaviour, and
# each one the brief names also against a control run of the same probe as
# the same uid without the init, whose kernel answer must differ).
# Before the fix every probe here succeeded.  Root only.
#
# Issue 23: the filter is read back (PR_GET_SECCOMP is 2, and calls only it
# refuses are refused): a seccomp(2) faked to succeed, or a PR_GET_SECCOMP
# failing with EINVAL on a kernel that has seccomp, give 71 and the command
# never runs (fault injection with deny_call).
#
# usage: seccomp.sh PATH-TO-cli-sandbox-init [PATH-TO-deny_seccomp [PATH-TO-abi_probe [PATH-TO-deny_call]]]
set -u
INIT=$1
DENY=${2:-}
ABI=${3:-}
DENY_CALL=${4:-}
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

# One line per probe: "NAME ok" or "NAME ERRNO-NAME" (abi_probe's lines:
# "NAME ran" or "NAME SIGSYS"), then the process's seccomp state.
cat > "$T/probe.py" <<'EOS'
import ctypes, errno, os, socket, subprocess, sys
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
    if r >= 0 and (name.startswith("socket") or name in ("io_uring_setup", "userfaultfd", "bpf")):
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
# Kernel interfaces, with arguments whose answer without the filter is not
# the filter's (EFAULT, EINVAL, ENOKEY, a new fd) for an unprivileged caller.
raw("io_uring_setup", 425, 1, 0)           # NULL params: EFAULT
raw("bpf", 321, 9999, 0, 0)                # unknown command: EINVAL
raw("keyctl", 250, 0, -2, 0)               # KEYCTL_GET_KEYRING_ID of the process keyring
raw("add_key", 248, 0, 0, 0, 0, 0)         # NULL type: EFAULT
raw("request_key", 249, 0, 0, 0, 0)        # NULL type: EFAULT
raw("userfaultfd", 323, 1)                 # UFFD_USER_MODE_ONLY: allowed unprivileged
raw("perf_event_open", 298, 0, 0, -1, -1, 0)  # NULL attr: EFAULT
if len(sys.argv) > 1:
    sys.stdout.flush()
    subprocess.run([sys.argv[1]], check=True)
def status(path, key):
    for line in open(path):
        if line.startswith(key + ":"):
            return line.split()[1]
    return "none"
print("seccomp", status("/proc/self/status", "Seccomp"))
print("init_seccomp", status("/proc/1/status", "Seccomp"))
print("filters", status("/proc/self/status", "Seccomp_filters"))
print("init_filters", status("/proc/1/status", "Seccomp_filters"))
EOS
chmod 644 "$T/probe.py"
PROBE="/usr/bin/python3 $T/probe.py"
if [ -n "$ABI" ]; then
	cp "$ABI" "$T/abi_probe" && chmod 755 "$T/abi_probe" || exit 1
	PROBE="$PROBE $T/abi_probe"
fi
# The filters this shell runs under already (a runtime's, if any): the
# command and PID 1 must each hold exactly one more, the init's.
BASE_FILTERS=$(awk '$1 == "Seccomp_filters:" { print $2 }' /proc/self/status)

ENV="PATH=/usr/local/bin:/usr/bin:/bin CLI_SANDBOX_EGRESS_PROFILE=interactive SKIP_EGRESS_FIREWALL=true CLI_SANDBOX_USER=$U:$U"
[ -n "${ASAN_OPTIONS:-}" ] && ENV="$ENV ASAN_OPTIONS=$ASAN_OPTIONS"
run() {  # run NAME pid1|direct [VAR=VALUE...] -- COMMAND...
	name=$1 mode=$2  # not $how: the callers loop over that
	shift 2
	vars=
	while [ "$1" != -- ]; do vars="$vars $1"; shift; done
	shift
	if [ "$mode" = pid1 ]; then pre="unshare --pid --fork --kill-child --mount-proc"; else pre=; fi
	# shellcheck disable=SC2086
	timeout 60 $pre env -i $ENV $vars "$INIT" -- "$@" > "$T/$name.out" 2> "$T/$name.err"
	echo $? > "$T/$name.rc"
	grep -v 'SKIP_EGRESS_FIREWALL=true' "$T/$name.err" | sed "s/^/# $name: /"
}
got() { awk -v k="$2" '$1 == k { print $2 }' "$T/$1.out"; }
answer() { sed -n "s/^$2 //p" "$T/$1.out"; }  # the whole answer: "signal 11", not "signal"

# The other ABIs' entry points (abi_probe).  The control, the same call by
# the same uid without the init, says whether the kernel offers the ABI at
# all: "ran" (it returned, whatever it answered) means it does, and the
# filter must kill the process (SIGSYS), as strictly as ever.  Any other
# control answer (a signal, an exit status from a sanitizer's handler, an
# error) means the call never reaches a system call here: a kernel without
# IA32 emulation (CONFIG_IA32_EMULATION off, or ia32_emulation=0) raises
# SIGSEGV at int $0x80 before seccomp sees it.  Then what the filter would
# do cannot be seen: a skip with that reason, and still a check that the
# call does not run in the sandbox either (SIGSYS, or the kernel's own answer
# as in the control).  x32 numbers reach seccomp whether or not the kernel
# builds the x32 ABI (without it they answer ENOSYS: "ran"), so x32 stays
# strict wherever the control ran.
abi_cases() {  # abi_cases direct|pid1|optin
	if [ "$(got control i386)" = n/a ]; then
		t_skip "$1: the i386 and x32 entry points: this is not an x86_64 build (abi_probe: n/a)"
		return
	fi
	for k in i386 x32 i386_thread; do
		c=$(answer control $k)
		f=$(answer "$1" $k)
		if [ "$c" = ran ]; then
			ok "$1: a $k system call kills the process (SIGSYS; without the filter: $c)" [ "$f" = SIGSYS ]
			continue
		fi
		t_skip "$1: a $k system call kills the process: the kernel refuses it without the filter too ($c), so the filter never sees it$( [ $k = x32 ] || echo ' (no IA32 emulation)')"
		# shellcheck disable=SC2016 # the inner shell expands them
		ok "$1: a $k system call does not run in the sandbox either (got ${f:-nothing}; without the filter: ${c:-nothing})" \
			sh -c '[ -n "$1" ] && [ "$1" != ran ] && { [ "$1" = SIGSYS ] || [ "$1" = "$2" ]; }' - "$f" "$c"
	done
}

# The control: the same probe as the same uid, without the init, in the same
# environment (a sanitizer's options included: under AddressSanitizer a
# SIGSEGV becomes its report and exit 1, or an abort with abort_on_error).
# shellcheck disable=SC2086
timeout 60 setpriv --reuid "$U" --regid "$U" --clear-groups env -i PATH=/usr/bin:/bin \
	${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} $PROBE > "$T/control.out" 2> "$T/control.err"
ok "control: the probe ran without the init (exit 0)" [ $? = 0 ]
ok "control: no filter of the init's (Seccomp_filters as this shell's)" \
	[ "$(got control filters)" = "${BASE_FILTERS:-none}" ]

for how in direct pid1 optin; do
	# shellcheck disable=SC2086 # $PROBE is the command and its arguments
	case $how in
	optin) run optin pid1 CLI_SANDBOX_ALLOW_USERNS=true -- $PROBE ;;
	*) run "$how" "$how" -- $PROBE ;;
	esac
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
	if [ "$how" = optin ]; then
		ok "$how: clone3 answers as without the filter ($(got control clone3))" \
			[ "$(got "$how" clone3)" = "$(got control clone3)" ]
	else
		ok "$how: unshare(CLONE_NEWUSER) is refused (EPERM)" [ "$(got "$how" unshare_user)" = EPERM ]
		ok "$how: clone3 says ENOSYS, so libc falls back to clone" [ "$(got "$how" clone3)" = ENOSYS ]
	fi
	ok "$how: fork still works" grep -qx 'fork ok' "$T/$how.out"
	ok "$how: io_uring_setup says ENOSYS" [ "$(got "$how" io_uring_setup)" = ENOSYS ]
	for k in bpf keyctl add_key request_key userfaultfd perf_event_open; do
		ok "$how: $k is refused (EPERM)" [ "$(got "$how" $k)" = EPERM ]
	done
	[ -n "$ABI" ] && abi_cases "$how"
	ok "$how: the command runs under a seccomp filter (Seccomp: 2)" [ "$(got "$how" seccomp)" = 2 ]
	ok "$how: the command holds one filter more than the test (Seccomp_filters $(got "$how" filters))" \
		[ "$(got "$how" filters)" = $((${BASE_FILTERS:-0} + 1)) ]
done
# What proves the filter rather than the kernel or the uid: without it the
# same call by the same uid answers otherwise.
# Where the kernel lacks the feature itself (no vsock transport: the family is
# unknown, EAFNOSUPPORT; no io_uring built in: ENOSYS; unprivileged user
# namespaces refused by the host: EPERM), it answers as the
# filter does, and the refusal cannot be told from the kernel's here: a skip
# with that reason (the refusal itself is still checked above, and the BPF
# against libseccomp's in caps.sandbox_filter).
for k in vsock packet netlink_netfilter unshare_user io_uring_setup bpf keyctl; do
	case $k:$(got control $k) in
	vsock:EAFNOSUPPORT)
		t_skip "control: without the filter vsock answers otherwise: this kernel has no AF_VSOCK (EAFNOSUPPORT without the filter)"
		continue ;;
	unshare_user:EPERM)
		t_skip "control: without the filter unshare_user answers otherwise: this host refuses unprivileged user namespaces itself (EPERM without the filter)"
		continue ;;
	io_uring_setup:ENOSYS)
		t_skip "control: without the filter io_uring_setup answers otherwise: this kernel has no io_uring (ENOSYS without the filter)"
		continue ;;
	esac
	ok "control: without the filter $k answers otherwise ($(got control $k), filtered: $(got direct $k))" \
		[ "$(got control $k)" != "$(got direct $k)" ]
done
for how in pid1 optin; do
	ok "$how: PID 1 itself runs under the filter (Seccomp: 2)" [ "$(got $how init_seccomp)" = 2 ]
	ok "$how: PID 1 holds one filter more than the test (Seccomp_filters $(got $how init_filters))" \
		[ "$(got $how init_filters)" = $((${BASE_FILTERS:-0} + 1)) ]
done

# The userns-creating tools see the refusal as such.
run unshare direct -- unshare --user true
ok "unshare --user fails under the default filter" [ "$(cat "$T/unshare.rc")" != 0 ]

# The opt-in: user namespaces again (where the host allows them at all).
if setpriv --reuid "$U" --regid "$U" --clear-groups unshare --user true 2> /dev/null; then
	ok "opt-in: unshare(CLONE_NEWUSER) works" [ "$(got optin unshare_user)" = ok ]
	run optin-tool direct CLI_SANDBOX_ALLOW_USERNS=true -- unshare --user --map-root-user true
	ok "opt-in: unshare --user --map-root-user works" [ "$(cat "$T/optin-tool.rc")" = 0 ]
else
	t_skip "opt-in: user namespaces work again: this host refuses unprivileged user namespaces without the init too (unshare --user as uid $U failed)"
fi
# shellcheck disable=SC2086 # $PROBE is the command and its arguments
run optfalse direct CLI_SANDBOX_ALLOW_USERNS=false -- $PROBE
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

# Issue 23: a step that reports success without effect fails the start.
#   seccomp(2) answers 0 and installs nothing (the prctl fallback is never
#   reached: it only follows ENOSYS);
#   prctl(PR_GET_SECCOMP) (21) fails with EINVAL (22) on a kernel that has
#   seccomp: never "this kernel has no seccomp".
if [ -n "$DENY_CALL" ]; then
	for fault in "seccomp 0:not in force|does not refuse" "prctl 22 21:PR_GET_SECCOMP"; do
		args=${fault%%:*}
		want=${fault#*:}
		tag=$(printf '%s' "$args" | tr ' ' '-')
		for how in direct pid1; do
			if [ "$how" = pid1 ]; then pre="unshare --pid --fork --kill-child --mount-proc"; else pre=; fi
			rm -f "$T/ran-$tag-$how"
			# shellcheck disable=SC2086
			timeout 60 $pre env -i $ENV "$DENY_CALL" $args -- "$INIT" -- sh -c "touch $T/ran-$tag-$how" \
				> "$T/fault-$tag-$how.out" 2> "$T/fault-$tag-$how.err"
			r=$?
			sed "s/^/# fault $tag $how: /" "$T/fault-$tag-$how.err" | grep -v 'SKIP_EGRESS_FIREWALL=true'
			ok "$how, $args faked: 71 (got $r)" [ "$r" = 71 ]
			ok "$how, $args faked: an error line that says so ($want)" grep -Eq "error:.*($want)" "$T/fault-$tag-$how.err"
			ok "$how, $args faked: no warning that the kernel lacks seccomp" \
				sh -c "! grep -q 'HAS NO SECCOMP' '$T/fault-$tag-$how.err'"
			ok "$how, $args faked: the command never ran" [ ! -e "$T/ran-$tag-$how" ]
		done
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
