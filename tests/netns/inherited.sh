#!/bin/sh
# Nothing from before the firewall crosses into the command (issue 11,
# finding 3).  In the sandbox namespace a launcher opens a TCP connection
# to 198.51.100.2 (an echo server the managed firewall does not allow)
# before the init starts, and leaks it to the init as fd 5.  As in a Docker container,
# whose embedded-DNS NAT rules turn connection tracking on from the start,
# another table makes conntrack track that connection from its first packet.
#   - The command must not get fd 5 (every descriptor above 2 is closed).
#   - The connection itself must stop working once the firewall is up: the
#     init flushes the namespace's conntrack table, so its next packet is
#     "new" and refused instead of "established" and accepted.
# Before the fix the command echoed through fd 5 and the launcher's own
# connection kept working behind the firewall.  Root only.
#
# usage: inherited.sh PATH-TO-cli-sandbox-init
set -u
INIT=$1
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/topology.sh"
if [ "$(id -u)" != 0 ]; then echo "skip: needs root"; exit 77; fi
command -v /usr/bin/python3 > /dev/null || { echo "skip: needs python3"; exit 77; }
trap topo_down EXIT
trap 'exit 1' INT TERM

cp "$HERE/netservers.py" "$TOPO_DIR/"
topo_up || { echo "not ok - topology"; exit 1; }
U=$(t_free_id 54321)
topo_spawn "$NS_OTHER" /usr/bin/python3 "$TOPO_DIR/netservers.py" --max-seconds 60 --tcp 198.51.100.2:7000
topo_wait_tcp "$NS_SBX" 198.51.100.2 7000 || exit 1
# Docker-like: its embedded-DNS DNAT rule, so flows are tracked before our firewall.
ip netns exec "$NS_SBX" nft -f - <<'EON' || { echo "not ok - the conntrack-enabling table"; exit 1; }
table ip dockerlike {
	chain output {
		type nat hook output priority -100; policy accept;
		ip daddr 127.0.0.11 udp dport 53 dnat to 127.0.0.11:5353
	}
}
EON

# The launcher: connects, proves the echo works, starts the init with the
# socket as fd 5, then tries the same connection again.  Every wait bounded.
cat > "$TOPO_DIR/launcher.py" <<'EOS'
import os, socket, subprocess, sys
init, uid = sys.argv[1], sys.argv[2]
# Waits of 10 s: wide enough for a loaded machine, and free when all goes
# well (the echo answers at once, and the firewall resets at once).
s = socket.create_connection(("198.51.100.2", 7000), 10)
s.settimeout(10)
def echo(tag):
    try:
        s.sendall(tag.encode() + b"\n")
        line = s.makefile("rb").readline().decode().strip()
        return "answered" if line == "echo:" + tag else "wrong:" + line
    except OSError as e:
        return type(e).__name__
print("before", echo("before"), flush=True)
s.settimeout(None)  # the command gets a blocking descriptor
LEAK = 5 if s.fileno() != 5 else 6
os.dup2(s.fileno(), LEAK)
os.set_inheritable(LEAK, True)
cmd = ('if [ -e /proc/$$/fd/%d ]; then echo leaked=open; printf "leak\\n" >&%d; '
       'timeout 10 head -n 1 <&%d | sed "s/^/leaked-read=/"; else echo leaked=closed; fi') % (LEAK, LEAK, LEAK)
env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "TASK_AGENT_MODEL_BASE_URL": "http://192.0.2.1:8080",
       "CLI_SANDBOX_USER": uid + ":" + uid}
if os.environ.get("ASAN_OPTIONS"):
    env["ASAN_OPTIONS"] = os.environ["ASAN_OPTIONS"]
r = subprocess.run([init, "--", "sh", "-c", cmd], env=env, pass_fds=(LEAK,), timeout=30,
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
os.close(LEAK)
for line in r.stderr.splitlines():
    print("# init:", line)
print("rc", r.returncode)
for line in r.stdout.splitlines():
    print("cmd", line)
s.settimeout(10)
print("after", echo("after"), flush=True)
EOS
ip netns exec "$NS_SBX" /usr/bin/python3 "$TOPO_DIR/launcher.py" "$INIT" "$U" > "$TOPO_DIR/out" 2>&1
sed 's/^/# /' "$TOPO_DIR/out"
val() { awk -v k="$1" '$1 == k { $1 = ""; sub(/^ /, ""); print }' "$TOPO_DIR/out"; }

ok "baseline: the connection works before the firewall" [ "$(val before)" = answered ]
ok "the init ran the command (exit 0)" [ "$(val rc)" = 0 ]
ok "the command did not inherit the leaked descriptor" grep -qx 'cmd leaked=closed' "$TOPO_DIR/out"
ok "the command read nothing through a leaked descriptor" sh -c "! grep -q 'leaked-read=echo' '$TOPO_DIR/out'"
ok "the connection from before the firewall no longer works ($(val after))" \
	sh -c "[ '$(val after)' != answered ] && [ -n '$(val after)' ]"
ok "the firewall is up in the namespace" sh -c "ip netns exec '$NS_SBX' nft list tables | grep -q cli_sandbox"
t_done
