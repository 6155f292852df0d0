#!/bin/sh
# The command cannot steer its supervisor (issue 11, finding 2): with the
# init really PID 1 of a pid namespace, the command (same uid) tries to
# lower PID 1's CPU limit with prlimit and then floods it with signals, as a
# red-team pass did.  prlimit must be refused, PID 1's limits must be
# unchanged, and the container must still exit with the command's status.
# Before the fix prlimit succeeded and the kernel killed PID 1 (SIGKILL at
# the hard RLIMIT_CPU) within a few seconds of the flood.  Root only.
#
# usage: steer.sh PATH-TO-cli-sandbox-init
set -u
INIT=$1
. "$(cd "$(dirname "$0")/.." && pwd)/lib/tap.sh"

if [ "$(id -u)" != 0 ]; then echo "skip: needs root"; exit 77; fi
for tool in unshare prlimit timeout /usr/bin/python3; do
	command -v $tool > /dev/null || { echo "skip: needs $tool"; exit 77; }
done

T=$(mktemp -d /tmp/cs-steer.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
trap 'exit 1' INT TERM
chmod 755 "$T"
U=$(t_free_id 54321)
G=$(t_free_id $((U + 1)))

# The attack, run as the command.  The flood is two Python loops of
# kill(1, SIGWINCH) for 8 s: each signal wakes the init, which forwards it
# (the command ignores WINCH).  Bounded: 8 s, then exit 7.
cat > "$T/attack.sh" <<'EOS'
before=$(awk '/^Max cpu time/ { print $4, $5 }' /proc/1/limits)
if prlimit --pid 1 --cpu=1:1 2> /dev/null; then echo prlimit=allowed; else echo prlimit=refused; fi
after=$(awk '/^Max cpu time/ { print $4, $5 }' /proc/1/limits)
echo "limits-before=$before"
echo "limits-after=$after"
echo "init-gid=$(awk '/^Gid:/ { print $2, $3, $4, $5 }' /proc/1/status)"
echo "init-groups=$(sed -n 's/^Groups:[[:space:]]*//p' /proc/1/status | sed 's/ *$//')"
echo "my-gid=$(awk '/^Gid:/ { print $2 }' /proc/$$/status)"
flood='
import os, signal, time
end = time.monotonic() + 8
while time.monotonic() < end:
    for _ in range(1000):
        try:
            os.kill(1, signal.SIGWINCH)
        except OSError:
            pass
'
/usr/bin/python3 -c "$flood" &
/usr/bin/python3 -c "$flood"
wait
echo flood=done
exit 7
EOS
chmod 644 "$T/attack.sh"

timeout 60 unshare --pid --fork --kill-child --mount-proc env -i PATH=/usr/local/bin:/usr/bin:/bin \
	${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} CLI_SANDBOX_EGRESS_PROFILE=interactive SKIP_EGRESS_FIREWALL=true \
	CLI_SANDBOX_USER="$U:$G" "$INIT" -- sh "$T/attack.sh" > "$T/out" 2> "$T/err"
echo $? > "$T/rc"
sed 's/^/# out: /' "$T/out"
grep -v 'SKIP_EGRESS_FIREWALL=true' "$T/err" | sed 's/^/# err: /'
val() { sed -n "s/^$1=//p" "$T/out"; }

ok "prlimit on PID 1 is refused to the command" [ "$(val prlimit)" = refused ]
ok "PID 1's CPU limit is unchanged ($(val limits-after))" [ "$(val limits-before)" = "$(val limits-after)" ]
ok "PID 1 runs with a gid other than the command's $G" \
	sh -c "g='$(val init-gid)'; [ -n \"\$g\" ] && for x in \$g; do [ \"\$x\" != '$G' ] || exit 1; done"
ok "PID 1 holds no supplementary group of the command's" [ -z "$(val init-groups)" ]
ok "the command saw its own gid $G" [ "$(val my-gid)" = "$G" ]
ok "the flood ran to its end" grep -qx flood=done "$T/out"
ok "the container exits with the command's status 7 ($(cat "$T/rc"))" [ "$(cat "$T/rc")" = 7 ]
t_done
