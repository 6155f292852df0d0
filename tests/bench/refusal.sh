#!/bin/sh
# Benchmark (prints figures, asserts only that each run completed): how long a
# refused connection takes to fail from inside the managed profile, RUNS times
# each, for IPv4 TCP, IPv6 TCP (global and link-local), MPTCP and UDP.  A
# reset answers TCP at once; before it, IPv6 took one SYN retransmit (~1 s)
# and link-local never failed.  Root only; namespaces of tests/netns/topology.sh.
# usage: refusal.sh PATH-TO-cli-sandbox-init [RUNS]
set -u
INIT=$1
RUNS=${2:-50}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../netns/topology.sh"
trap topo_down EXIT INT TERM
topo_up || { echo "not ok - topology"; exit 1; }
ip -n "$NS_SBX" -6 addr add fe80::2/64 dev s0 nodad
ip -n "$NS_GW" -6 addr add fe80::1/64 dev g0 nodad
cat >"$TOPO_DIR/time_refusal.py" <<'PY'
import socket, statistics, sys, time
runs = int(sys.argv[1])
def once(fam, kind, proto, addr):
    s = socket.socket(fam, kind, proto)
    s.settimeout(5)
    t = time.monotonic()
    try:
        s.connect(addr)
        if kind == socket.SOCK_DGRAM:
            s.send(b"x")
            s.recv(1)
        return "connected", time.monotonic() - t
    except OSError as e:
        return type(e).__name__ if e.errno is None else e.strerror, time.monotonic() - t
    finally:
        s.close()
ll = socket.getaddrinfo("fe80::1%s0", 8080, socket.AF_INET6, 0, 0, socket.AI_NUMERICHOST)[0][4]
cases = [("TCP IPv4", socket.AF_INET, socket.SOCK_STREAM, 0, ("192.0.2.1", 8080)),
         ("TCP IPv6", socket.AF_INET6, socket.SOCK_STREAM, 0, ("2001:db8:1::1", 8080)),
         ("TCP IPv6 link-local", socket.AF_INET6, socket.SOCK_STREAM, 0, ll),
         ("MPTCP IPv4", socket.AF_INET, socket.SOCK_STREAM, 262, ("192.0.2.1", 8080)),
         ("MPTCP IPv6", socket.AF_INET6, socket.SOCK_STREAM, 262, ("2001:db8:1::1", 8080)),
         ("UDP IPv4", socket.AF_INET, socket.SOCK_DGRAM, 0, ("192.0.2.1", 9999))]
for name, fam, kind, proto, addr in cases:
    res = [once(fam, kind, proto, addr) for _ in range(runs)]
    ms = sorted(r[1] * 1000 for r in res)
    errs = sorted({r[0] for r in res})
    print(f"{name}: {'/'.join(errs)}; median {statistics.median(ms):.3f} ms, max {ms[-1]:.3f} ms ({runs} runs)")
PY
chmod 644 "$TOPO_DIR/time_refusal.py"
# The gateway port the probe aims at is not the allowed one (9090 is).
ip netns exec "$NS_SBX" env -i PATH=/usr/bin:/bin CLI_SANDBOX_USER=nobody \
	TASK_AGENT_MODEL_BASE_URL=http://192.0.2.1:9090 "$INIT" -- python3 "$TOPO_DIR/time_refusal.py" "$RUNS" \
	>"$TOPO_DIR/out" 2>"$TOPO_DIR/err"
rc=$?
sed 's/^/# /' "$TOPO_DIR/out"
ok "the timed refusals ran in the managed profile (exit $rc)" [ $rc -eq 0 ]
t_done
