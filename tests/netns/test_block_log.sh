#!/bin/sh
# The block log with real packets: the init runs as PID 1 of a pid namespace
# inside the sandbox's network namespace (with its own /run), programs the
# managed firewall, binds the NFLOG group, drops, and runs a probe that
# tries refused TCP, UDP, DNS, IPv6 and ICMP egress and allowed traffic,
# then reads /run/cli-sandbox/blocked.log as the command.  Root only.
# usage: test_block_log.sh PATH-TO-cli-sandbox-init
set -u
INIT=$1
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/topology.sh"
trap topo_down EXIT INT TERM

for tool in unshare timeout; do
	command -v $tool > /dev/null || { echo "skip: needs $tool"; exit 77; }
done
# shellcheck source=tests/lib/controls.sh
. "$HERE/../lib/controls.sh"
need_nflog
cp "$HERE/block_log_probe.py" "$HERE/netservers.py" "$TOPO_DIR/"
chmod 644 "$TOPO_DIR"/*.py
topo_up || { echo "not ok - topology"; exit 1; }
topo_spawn "$NS_GW" python3 "$TOPO_DIR/netservers.py" --max-seconds 120 \
	--tcp 192.0.2.1:8080 --tcp 192.0.2.1:9090 --tcp "[2001:db8:1::1]:8080" --dns 192.0.2.1:53
topo_spawn "$NS_OTHER" python3 "$TOPO_DIR/netservers.py" --max-seconds 120 \
	--tcp 198.51.100.2:53 --dns 198.51.100.2:9999
topo_spawn "$NS_SBX" python3 "$TOPO_DIR/netservers.py" --max-seconds 120 --tcp 127.0.0.1:7000
topo_wait_tcp "$NS_GW" 192.0.2.1 8080 && topo_wait_tcp "$NS_OTHER" 198.51.100.2 53 &&
	topo_wait_tcp "$NS_SBX" 127.0.0.1 7000 || exit 1

LOG=/run/cli-sandbox/blocked.log
# PID 1 of a new pid namespace, with a tmpfs of its own on /run (a mount
# namespace of its own, so the host's /run is untouched).
timeout 60 ip netns exec "$NS_SBX" unshare --pid --fork --kill-child --mount --mount-proc \
	sh -c 'mount -t tmpfs -o mode=755 cs-run /run && exec "$@"' sh \
	env -i PATH=/usr/local/bin:/usr/bin:/bin CLI_SANDBOX_USER=nobody \
	TASK_AGENT_MODEL_BASE_URL=http://192.0.2.1:8080 ${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} \
	"$INIT" -- python3 "$TOPO_DIR/block_log_probe.py" "$LOG" > "$TOPO_DIR/out" 2> "$TOPO_DIR/err"
rc=$?
sed 's/^/# out: /' "$TOPO_DIR/out"
sed 's/^/# err: /' "$TOPO_DIR/err"
ok "the init ran the probe as PID 1 (exit $rc)" [ $rc -eq 0 ]
ok "the start names the block log" grep -q "block log: refused egress is reported in $LOG and on stderr" "$TOPO_DIR/err"
ok "no warning about the block log" sh -c "! grep -q 'warning' '$TOPO_DIR/err'"

has() {  # has WHAT LINE-PATTERN: in the file the command read, and on stderr
	ok "block log: $1" grep -Eq "^[0-9T:-]+Z refused $2 uid 65534" "$TOPO_DIR/out"
	ok "stderr: $1" grep -Eq "^cli-sandbox-init: blocked: [0-9T:-]+Z refused $2 uid 65534" "$TOPO_DIR/err"
}
has "refused TCP" "tcp to 192\.0\.2\.1 port 9090"
has "refused UDP" "udp to 198\.51\.100\.2 port 9999"
has "refused DNS over UDP" "udp to 192\.0\.2\.1 port 53"
has "refused DNS over TCP" "tcp to 198\.51\.100\.2 port 53"
has "refused IPv6 TCP" "tcp to 2001:db8:1::1 port 8080"
has "refused IPv6 UDP" "udp to 2001:db8:1::1 port 5353"
has "refused ICMP echo" "icmp to 192\.0\.2\.1 type 8"
has "a refusal after a flood, once the limit refilled" "tcp to 192\.0\.2\.1 port 9091"
ok "301 packets of one refused flow give one line" [ "$(grep -c 'udp to 198.51.100.2 port 9999' "$TOPO_DIR/out")" -eq 1 ]
ok "allowed: the gateway tuple is not in the log" sh -c "! grep -q 'to 192.0.2.1 port 8080' '$TOPO_DIR/out' '$TOPO_DIR/err'"
ok "allowed: loopback is not in the log" sh -c "! grep -q 'to 127.0.0.1' '$TOPO_DIR/out' '$TOPO_DIR/err'"
ok "the kernel's own packets (IPv6 neighbour discovery, no socket) are not reported" sh -c "! grep -q 'uid ?' '$TOPO_DIR/out'"
ok "the file starts with its header" grep -q '^# cli-sandbox block log, started at' "$TOPO_DIR/out"
for c in write unlink replace create; do
	ok "the command cannot $c the block log" grep -q "^check $c ok" "$TOPO_DIR/out"
done

# The group already held (another init, still running, bound it): the second
# start warns, programs the same firewall, and runs its command.
pid1_in_sbx() {  # pid1_in_sbx OUT COMMAND...: the init as PID 1 in the sandbox
	out=$1
	shift
	timeout 60 ip netns exec "$NS_SBX" unshare --pid --fork --kill-child --mount --mount-proc \
		sh -c 'mount -t tmpfs -o mode=755 cs-run /run && exec "$@"' sh \
		env -i PATH=/usr/local/bin:/usr/bin:/bin CLI_SANDBOX_USER=nobody \
		TASK_AGENT_MODEL_BASE_URL=http://192.0.2.1:8080 ${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} \
		"$INIT" -- "$@" > "$out" 2> "$out.err"
}
# The holder keeps the group until the second start is over (the file
# "release" appears), not for a time that a loaded machine could outrun;
# every wait is bounded.
pid1_in_sbx "$TOPO_DIR/holder" sh -c 'i=0; until [ -e "$1" ] || [ $i -ge 1200 ]; do sleep 0.05; i=$((i + 1)); done' \
	sh "$TOPO_DIR/release" &
holder=$!
i=0
until grep -q 'block log: refused egress' "$TOPO_DIR/holder.err" 2> /dev/null || [ $i -ge 1200 ]; do
	sleep 0.05
	i=$((i + 1))
done
ok "the holder bound the group first" grep -q 'block log: refused egress' "$TOPO_DIR/holder.err"
pid1_in_sbx "$TOPO_DIR/second" python3 -c 'import socket; s = socket.socket(); s.settimeout(10)
try:
    s.connect(("192.0.2.1", 9090)); print("connected")
except ConnectionRefusedError:
    print("refused")'
rc=$?
touch "$TOPO_DIR/release"
wait "$holder"
sed 's/^/# second: /' "$TOPO_DIR/second.err"
ok "the group held elsewhere: the start still succeeds (exit $rc)" [ $rc -eq 0 ]
ok "the group held elsewhere: one warning names it" grep -q 'warning: no block log: the kernel refused to bind NFLOG group 1701' "$TOPO_DIR/second.err"
ok "the group held elsewhere: the firewall still refuses" grep -qx refused "$TOPO_DIR/second"
t_done
