#!/bin/sh
# Benchmark (prints figures, asserts only that the run completed): what a
# flood of refused packets costs PID 1 with the block log on.  The init runs
# as PID 1 of a pid namespace in the managed sandbox; the command sends
# refused UDP to ever new ports (every packet a new flow: the worst case for
# the dedup table) and refused TCP connects for SECONDS; from outside, this
# script reads PID 1's CPU time and memory before and after.  The ruleset's
# limit caps what reaches PID 1, so its CPU stays near zero and its memory
# flat whatever the flood.  Root only.
# usage: block_log.sh PATH-TO-cli-sandbox-init [SECONDS]
set -u
INIT=$1
SECS=${2:-5}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../netns/topology.sh"
BG=
cleanup() {
	[ -n "$BG" ] && kill "$BG" 2> /dev/null
	topo_down
}
trap cleanup EXIT INT TERM
command -v unshare > /dev/null || { echo "skip: needs unshare"; exit 77; }
# shellcheck source=tests/lib/controls.sh
. "$HERE/../lib/controls.sh"
need_nflog
topo_up || { echo "not ok - topology"; exit 1; }
W=$TOPO_DIR/w
mkdir "$W" && chmod 777 "$W"
cat > "$TOPO_DIR/flood.py" <<'PY'
import os, socket, sys, time
w, secs = sys.argv[1], float(sys.argv[2])
def mark(name, text=""):
    with open(os.path.join(w, name), "w") as f:
        f.write(text)
def wait(name, limit=30):
    end = time.monotonic() + limit
    while not os.path.exists(os.path.join(w, name)) and time.monotonic() < end:
        time.sleep(0.02)
time.sleep(0.3)
mark("start")
wait("before")
udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
n_udp = n_tcp = 0
end = time.monotonic() + secs
port = 1024
while time.monotonic() < end:
    for _ in range(200):
        port = port + 1 if port < 65000 else 1024
        try:
            udp.sendto(b"x", ("198.51.100.2", port))
        except OSError:
            pass
        n_udp += 1
    t = socket.socket()
    try:
        t.connect(("192.0.2.1", 9090))
    except OSError:
        pass
    t.close()
    n_tcp += 1
time.sleep(1)  # let PID 1 catch up before it is measured
mark("flooded", f"{n_udp} {n_tcp}")
wait("after")
PY
chmod 644 "$TOPO_DIR/flood.py"

ip netns exec "$NS_SBX" unshare --pid --fork --kill-child --mount --mount-proc \
	sh -c 'mount -t tmpfs -o mode=755 cs-run /run && exec "$@"' sh \
	env -i PATH=/usr/local/bin:/usr/bin:/bin CLI_SANDBOX_USER=nobody \
	TASK_AGENT_MODEL_BASE_URL=http://192.0.2.1:8080 "$INIT" -- \
	sh -c 'python3 "$1" "$2" "$3"; rc=$?; wc -l < /run/cli-sandbox/blocked.log > "$2/lines"; exit $rc' sh \
	"$TOPO_DIR/flood.py" "$W" "$SECS" > "$TOPO_DIR/out" 2> "$TOPO_DIR/err" &
BG=$!

wait_for() {  # wait_for FILE: up to 60 s
	i=0
	while [ ! -e "$1" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	[ -e "$1" ]
}
init_pid() { awk '{ print $1 }' /proc/"$BG"/task/"$BG"/children 2> /dev/null; }
cpu_ms() {  # time PID spent on a CPU, in ms (schedstat: ns; else stat's ticks)
	if [ -r /proc/"$1"/schedstat ]; then
		awk '{ printf "%.3f", $1 / 1e6 }' /proc/"$1"/schedstat
	else
		awk -v hz="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); print ($12 + $13) * 1000 / hz }' /proc/"$1"/stat
	fi
}
mem() { awk '/^VmRSS|^VmHWM/ { printf "%s %s kB  ", $1, $2 }' /proc/"$1"/status; }

wait_for "$W/start" || { echo "not ok - the flood did not start"; exit 1; }
P=$(init_pid)
c0=$(cpu_ms "$P")
m0=$(mem "$P")
touch "$W/before"
wait_for "$W/flooded" || { echo "not ok - the flood did not end"; exit 1; }
c1=$(cpu_ms "$P")
m1=$(mem "$P")
touch "$W/after"
wait "$BG"
rc=$?
BG=
read -r n_udp n_tcp < "$W/flooded"
echo "# refused packets sent in ${SECS} s: $n_udp UDP (each to a new port: a new flow), $n_tcp TCP connects"
echo "# PID 1 CPU time during the flood: $(awk -v a="$c0" -v b="$c1" 'BEGIN { printf "%.3f", b - a }') ms"
echo "# PID 1 memory before: $m0"
echo "# PID 1 memory after:  $m1"
echo "# lines in blocked.log: $(cat "$W/lines" 2> /dev/null), on stderr: $(grep -c 'blocked:' "$TOPO_DIR/err")"
grep -v 'blocked:' "$TOPO_DIR/err" | sed 's/^/# err: /'
ok "the flood ran under the init as PID 1 (exit $rc)" [ "$rc" -eq 0 ]
t_done
