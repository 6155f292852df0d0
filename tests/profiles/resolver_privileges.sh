#!/bin/sh
# The resolver child is unprivileged (issue 11, finding 1).  An interactive
# start resolves names in a forked child while glibc parses answers from the
# network; that child must have dropped to the sandbox user with no
# capability, no supplementary group and no_new_privs before it resolves.
# The namespace's only nameserver swallows queries and never answers, so the
# child sits in getaddrinfo while the test reads its /proc status.  Before
# the fix it ran as uid 0 with every capability the init had.  Root only.
#
# usage: resolver_privileges.sh PATH-TO-cli-sandbox-init
set -u
INIT=$1
. "$(cd "$(dirname "$0")/.." && pwd)/lib/tap.sh"
if [ "$(id -u)" != 0 ]; then echo "skip: needs root"; exit 77; fi
for tool in ip unshare /usr/bin/python3 timeout; do
	command -v $tool > /dev/null || { echo "skip: needs $tool"; exit 77; }
done

T=$(mktemp -d /tmp/cs-resolver.XXXXXX) || exit 1
NS=cs-res-$$
BH=''
INITPID=''
cleanup() {
	[ -n "$INITPID" ] && kill "$INITPID" 2> /dev/null
	[ -n "$BH" ] && kill "$BH" 2> /dev/null
	wait 2> /dev/null
	ip netns delete "$NS" 2> /dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
chmod 755 "$T"
U=$(t_free_id 54321)

ip netns add "$NS" || { echo "not ok - ip netns add"; exit 1; }
ip -n "$NS" link set lo up
ip -n "$NS" addr add 192.0.2.53/32 dev lo
# The black hole: reads every query, answers none (for at most 30 s).
cat > "$T/blackhole.py" <<'EOS'
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("192.0.2.53", 53))
s.settimeout(1)
print("ready", flush=True)
end = time.monotonic() + 30
while time.monotonic() < end:
    try:
        data, peer = s.recvfrom(512)
        print("query", len(data), flush=True)
    except socket.timeout:
        pass
EOS
ip netns exec "$NS" /usr/bin/python3 "$T/blackhole.py" > "$T/bh.log" 2>&1 &
BH=$!
i=0
while ! grep -q ready "$T/bh.log" && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
printf 'nameserver 192.0.2.53\noptions timeout:5 attempts:1\n' > "$T/resolv.conf"
chmod 644 "$T/resolv.conf" "$T/blackhole.py"

# The init, interactive, as a real start would resolve; --dry-run so that
# nothing else happens.  unshare --mount without --fork and sh's exec keep
# the init at the pid that $! names.
ip netns exec "$NS" unshare --mount --propagation private \
	sh -c 'mount --bind "$0" /etc/resolv.conf && exec "$@"' "$T/resolv.conf" \
	env -i PATH=/usr/local/bin:/usr/bin:/bin ${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} \
	CLI_SANDBOX_EGRESS_PROFILE=interactive CLI_SANDBOX_USER="$U:$U" CLI_SANDBOX_ALLOW=slow.test:443 \
	CLI_SANDBOX_PROFILE_DIR="$T/no-profiles" "$INIT" --dry-run -- true > "$T/out" 2> "$T/err" &
INITPID=$!

# The child lives until the init's lookup deadline (5 s) kills it.  So
# that a loaded machine cannot make the test miss it: once the child is
# there, the init is stopped (its deadline cannot fire), and once the child
# has sent its query (after it shed its privileges) the child is stopped
# too, read, and both continue.  Every wait is bounded (30 s).
# $! is ip's pid, which becomes unshare, then sh, whose `mount` is a child
# too before sh execs the init: a child counts only once that pid is the init.
INITEXE=$(readlink -f "$INIT")
child=
i=0
until [ -n "$child" ] || [ $i -ge 600 ]; do
	[ "$(readlink /proc/"$INITPID"/exe 2> /dev/null)" != "$INITEXE" ] ||
		child=$(cat /proc/"$INITPID"/task/*/children 2> /dev/null | awk '{ print $1 }')
	[ -n "$child" ] || sleep 0.05
	i=$((i + 1))
done
[ -n "$child" ] && kill -STOP "$INITPID"
i=0
until grep -q query "$T/bh.log" || [ $i -ge 600 ]; do sleep 0.05; i=$((i + 1)); done
[ -n "$child" ] && kill -STOP "$child" 2> /dev/null
ok "the init forked a resolver child that sent a query" sh -c "[ -n '$child' ] && grep -q query '$T/bh.log'"
cp /proc/"$child"/status "$T/child.status" 2> /dev/null
[ -n "$child" ] && kill -CONT "$child" "$INITPID" 2> /dev/null
field() { sed -n "s/^$1:[[:space:]]*//p" "$T/child.status" | tr -s '\t ' '  ' | sed 's/ *$//'; }
sed -n '/^\(Name\|Uid\|Gid\|Groups\|Cap...\|NoNewPrivs\|Seccomp\):/s/^/# child: /p' "$T/child.status"
ok "the resolver runs as the sandbox user (uid $U, real/effective/saved/fs)" [ "$(field Uid)" = "$U $U $U $U" ]
ok "the resolver runs as the sandbox group (gid $U)" [ "$(field Gid)" = "$U $U $U $U" ]
ok "the resolver has no supplementary group" [ -z "$(field Groups)" ]
for set in CapInh CapPrm CapEff CapAmb; do
	ok "the resolver's $set is empty" [ "$(field $set)" = 0000000000000000 ]
done
ok "the resolver has no_new_privs" [ "$(field NoNewPrivs)" = 1 ]
ok "the resolver runs under its own seccomp filter (Seccomp: 2, issue 23)" [ "$(field Seccomp)" = 2 ]

# The start itself goes on: the name did not resolve, a warning says so.
wait "$INITPID"
rc=$?
INITPID=
sed 's/^/# init: /' "$T/err"
ok "the dry-run still completes (exit 0, got $rc)" [ "$rc" = 0 ]
ok "the unanswered name is a warning" grep -q 'slow.test.*did not resolve' "$T/err"
# Fail closed: a root start that cannot switch uid resolves nothing (71,
# one line); an unprivileged dry-run resolves as the user it runs as.
kill "$BH" 2> /dev/null
wait "$BH" 2> /dev/null
BH=
dry() {  # dry NAME PREFIX...: a dry-run resolving one name, in the namespace
	name=$1
	shift
	ip netns exec "$NS" "$@" env -i PATH=/usr/local/bin:/usr/bin:/bin ${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} \
		CLI_SANDBOX_EGRESS_PROFILE=interactive CLI_SANDBOX_USER="$U:$U" CLI_SANDBOX_ALLOW=slow.test:443 \
		CLI_SANDBOX_PROFILE_DIR="$T/no-profiles" "$INIT" --dry-run -- claude > "$T/$name.out" 2> "$T/$name.err"
	echo $? > "$T/$name.rc"
	grep 'error:' "$T/$name.err" | sed "s/^/# $name: /"
}
# Hostile answers (issue 23): a nameserver that answers every query with a
# compression-pointer loop, a CNAME loop, or bytes that claim more records
# than they hold.  glibc and the fast path parse them under the child's
# filter: the start completes, the name simply does not resolve, and the
# child is not killed (no 71).
cat > "$T/hostile.py" <<'EOS'
import socket, struct, sys
mode = sys.argv[1]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("192.0.2.53", 53))
s.settimeout(20)
print("ready", flush=True)
def name(n):
    return b"".join(bytes([len(l)]) + l.encode() for l in n.split(".")) + b"\0"
while True:
    try:
        q, peer = s.recvfrom(512)
    except socket.timeout:
        break
    i = 12
    while i < len(q) and q[i]:
        i += 1 + q[i]
    question = q[12:i + 5]
    if mode == "pointer-loop":
        body = question + b"\xc0" + bytes([12 + len(question)]) + struct.pack("!HHIH", 1, 1, 60, 4) + b"\xc6\x33\x64\x0a"
        count = 1
    elif mode == "cname-loop":
        a, b = name("slow.test"), name("b.test")
        body = (question + a + struct.pack("!HHIH", 5, 1, 60, len(b)) + b + b + struct.pack("!HHIH", 5, 1, 60, len(a)) + a
                + b + struct.pack("!HHIH", 1, 1, 60, 4) + b"\xc6\x33\x64\x0b")
        count = 3
    else:  # too many records claimed
        body = question + b"\xc0\x0c" + struct.pack("!HHIH", 1, 1, 60, 4) + b"\xc6\x33\x64\x0c"
        count = 40
    s.sendto(q[:2] + struct.pack("!HHHHH", 0x8180, 1, count, 0, 0) + body, peer)
EOS
chmod 644 "$T/hostile.py"
printf 'nameserver 192.0.2.53\noptions timeout:1 attempts:1\n' > "$T/resolv.conf"
for mode in pointer-loop cname-loop overcount; do
	ip netns exec "$NS" /usr/bin/python3 "$T/hostile.py" "$mode" > "$T/hostile.log" 2>&1 &
	BH=$!
	i=0
	while ! grep -q ready "$T/hostile.log" && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	ip netns exec "$NS" unshare --mount --propagation private \
		sh -c 'mount --bind "$0" /etc/resolv.conf && exec "$@"' "$T/resolv.conf" \
		env -i PATH=/usr/local/bin:/usr/bin:/bin ${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} \
		CLI_SANDBOX_EGRESS_PROFILE=interactive CLI_SANDBOX_USER="$U:$U" CLI_SANDBOX_ALLOW=slow.test:443 \
		CLI_SANDBOX_PROFILE_DIR="$T/no-profiles" "$INIT" --dry-run -- true > "$T/$mode.out" 2> "$T/$mode.err"
	rc=$?
	kill "$BH" 2> /dev/null
	wait "$BH" 2> /dev/null
	BH=
	grep -E 'error|slow.test' "$T/$mode.err" | sed "s/^/# $mode: /"
	ok "hostile answer ($mode): a clean refusal, the start completes (exit 0, got $rc)" [ "$rc" = 0 ]
	ok "hostile answer ($mode): the name does not resolve, nothing is allowed for it" \
		sh -c "grep -q 'slow.test.*\(did not resolve\|does not resolve\)' '$T/$mode.err' && ! grep -q '198.51.100' '$T/$mode.out'"
	ok "hostile answer ($mode): the resolver child was not killed by its filter" sh -c "! grep -q SIGSYS '$T/$mode.err'"
done

dry nosetuid setpriv --inh-caps=-all --bounding-set=-setuid,-setgid
ok "root without CAP_SETUID: the resolver refuses to run (71)" [ "$(cat "$T/nosetuid.rc")" = 71 ]
ok "root without CAP_SETUID: one error line about the resolver" \
	sh -c "[ \"\$(grep -c 'error:' '$T/nosetuid.err')\" = 1 ] && grep -q 'error:.*resolver' '$T/nosetuid.err'"
dry unprivileged setpriv --reuid "$U" --regid "$U" --clear-groups
ok "unprivileged dry-run: still completes (exit 0)" [ "$(cat "$T/unprivileged.rc")" = 0 ]
t_done
