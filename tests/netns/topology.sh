# Network-namespace topology for tests; source it, then call topo_up.
#
#   sandbox (192.0.2.2, 2001:db8:1::2) -- gateway (192.0.2.1, 2001:db8:1::1;
#   198.51.100.1; 169.254.169.254 on its loopback) -- other (198.51.100.2)
#
# Without a firewall the sandbox reaches every address here; tests assert
# that first, so a check can never pass because the topology is broken.
# Everything is named after this shell's PID; topo_down removes exactly what
# topo_up made and ends exactly the processes started with topo_spawn.

. "$(cd "$(dirname "$0")/.." && pwd)/lib/tap.sh"  # every test script sits one level below tests/

TOPO_TAG="cst$$"
NS_SBX="$TOPO_TAG-sbx"
NS_GW="$TOPO_TAG-gw"
NS_OTHER="$TOPO_TAG-oth"
TOPO_PIDS=""
TOPO_NETNS=""
TOPO_DIR=$(mktemp -d)
chmod 755 "$TOPO_DIR"

topo_ns() {  # topo_ns NAME: a namespace removed by topo_down
	ip netns add "$1" && TOPO_NETNS="$TOPO_NETNS $1"
}

topo_up() {
	topo_ns "$NS_SBX" && topo_ns "$NS_GW" && topo_ns "$NS_OTHER" || return 1
	for ns in $NS_SBX $NS_GW $NS_OTHER; do
		ip -n "$ns" link set lo up
	done
	ip link add s0 netns "$NS_SBX" type veth peer name g0 netns "$NS_GW"
	ip link add o0 netns "$NS_OTHER" type veth peer name g1 netns "$NS_GW"
	ip -n "$NS_SBX" addr add 192.0.2.2/24 dev s0
	ip -n "$NS_SBX" -6 addr add 2001:db8:1::2/64 dev s0 nodad
	ip -n "$NS_GW" addr add 192.0.2.1/24 dev g0
	ip -n "$NS_GW" -6 addr add 2001:db8:1::1/64 dev g0 nodad
	ip -n "$NS_GW" addr add 198.51.100.1/24 dev g1
	ip -n "$NS_GW" addr add 169.254.169.254/32 dev lo
	ip -n "$NS_OTHER" addr add 198.51.100.2/24 dev o0
	for l in "$NS_SBX s0" "$NS_GW g0" "$NS_GW g1" "$NS_OTHER o0"; do
		set -- $l
		ip -n "$1" link set "$2" up
	done
	ip -n "$NS_SBX" route add default via 192.0.2.1
	ip -n "$NS_SBX" -6 route add default via 2001:db8:1::1
	ip -n "$NS_OTHER" route add default via 198.51.100.1
	ip netns exec "$NS_GW" sysctl -qw net.ipv4.ip_forward=1
	# Unprivileged ICMP echo sockets, so the dropped-privilege probe can ping.
	ip netns exec "$NS_SBX" sysctl -qw net.ipv4.ping_group_range="0 2147483647"
}

topo_spawn() {  # topo_spawn NS CMD...: a background process ended by topo_down
	ns=$1
	shift
	ip netns exec "$ns" "$@" &
	TOPO_PIDS="$TOPO_PIDS $!"
}

topo_down() {
	for p in $TOPO_PIDS; do
		kill "$p" 2>/dev/null
	done
	for p in $TOPO_PIDS; do
		wait "$p" 2>/dev/null
	done
	for ns in $TOPO_NETNS; do
		ip netns del "$ns" 2>/dev/null
	done
	rm -rf "$TOPO_DIR"
	TOPO_PIDS=""
	TOPO_NETNS=""
}

# How the firewall refuses a probe check (tests/netns/probe.py): TCP, MPTCP
# included, with a reset (ECONNREFUSED at once), anything else with ICMP
# admin-prohibited (EHOSTUNREACH/EACCES at once).  Never a timeout.
topo_refusal() {  # topo_refusal CHECK
	case $1 in
	tcp:* | dns-tcp:* | mptcp:*) echo refused ;;
	*) echo unreachable ;;
	esac
}

# Waits (bounded: 300 tries, 30 s and more; it ends as soon as the port
# answers, and a loaded machine can take seconds to start a server) until a
# TCP port answers inside a namespace.
topo_wait_tcp() {  # topo_wait_tcp NS ADDR PORT
	i=0
	while [ $i -lt 300 ]; do
		ip netns exec "$1" python3 -c "import socket,sys; socket.create_connection((sys.argv[1], int(sys.argv[2])), 0.2).close()" "$2" "$3" 2>/dev/null && return 0
		sleep 0.1
		i=$((i + 1))
	done
	echo "server $2:$3 in $1 did not start" >&2
	return 1
}
