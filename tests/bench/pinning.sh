#!/bin/sh
# Benchmark of the pinning resolver (issue 33): added latency per lookup
# against a direct query to the same upstream (p50, p99), the resolver's RSS,
# and the time to its first answer.  Figures only; it asserts that the runs
# succeeded.  The topology and the upstream are the netns test's
# (tests/netns/test_pinning.sh, pinning_upstream.py).
#
# usage: pinning.sh RESOLVER [QUERIES]
RESOLVER=$1
N=${2:-2000}
HERE=$(cd "$(dirname "$0")" && pwd)
NETNS="$HERE/../netns"
TAG="csb$$"
SBX="$TAG-sbx"
SRV="$TAG-srv"
DIR=$(mktemp -d)
UP_PID=""
cleanup() {
	[ -z "$UP_PID" ] || { kill "$UP_PID" 2>/dev/null; wait "$UP_PID" 2>/dev/null; }
	ip netns del "$SBX" 2>/dev/null
	ip netns del "$SRV" 2>/dev/null
	rm -rf "$DIR"
}
trap cleanup EXIT INT TERM
R_UID=33000
while grep -q "^[^:]*:[^:]*:$R_UID:" /etc/passwd /etc/group; do R_UID=$((R_UID + 1)); done

ip netns add "$SBX" && ip netns add "$SRV" || exit 1
ip -n "$SBX" link set lo up
ip -n "$SRV" link set lo up
ip link add s0 netns "$SBX" type veth peer name g0 netns "$SRV"
ip -n "$SBX" addr add 192.0.2.2/24 dev s0
ip -n "$SRV" addr add 192.0.2.1/24 dev g0
ip -n "$SRV" addr add 192.0.2.53/32 dev g0
ip -n "$SBX" link set s0 up
ip -n "$SRV" link set g0 up
# the benchmark's own queries to the upstream come from root
ip netns exec "$SBX" nft -f - <<NFT || exit 1
table inet cli_sandbox {
	set pinned {
		type ipv4_addr . inet_service
		flags timeout
		timeout 900s
		size 65536
	}
	chain output {
		type filter hook output priority filter; policy drop;
		ct state established,related accept
		oif "lo" accept
		meta skuid { 0, $R_UID } ip daddr 192.0.2.53 meta l4proto { tcp, udp } th dport 53 accept
		meta nfproto ipv4 meta l4proto tcp ip daddr . tcp dport @pinned accept
		reject with icmpx admin-prohibited
	}
}
NFT
ip netns exec "$SRV" python3 "$NETNS/pinning_upstream.py" 192.0.2.53 "$DIR/upstream.log" 198.51.100.0 65536 >/dev/null 2>&1 &
UP_PID=$!
i=0
until ip netns exec "$SBX" python3 "$NETNS/pinning_client.py" direct 192.0.2.53 rotate.test 2>/dev/null | grep -q NOERROR; do
	i=$((i + 1))
	[ $i -lt 100 ] || { echo "the test upstream never answered"; exit 1; }
	sleep 0.1
done
echo "# pinning resolver: $N lookups, each answer a new address (pinned), TTL 1 s, T 900 s"
ip netns exec "$SBX" python3 "$HERE/pinning_bench.py" "$RESOLVER" --upstream 192.0.2.53 --allow rotate.test:443 \
	--user "$R_UID:$R_UID" -- "$N" 192.0.2.53
