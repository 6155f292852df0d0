#!/bin/sh
# Real packets through the real firewall: the managed profile lets the
# sandbox reach the gateway's tuple and nothing else.  Root only.
# usage: test_egress.sh PATH-TO-cli-sandbox-init
set -u
INIT=$1
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/topology.sh"
trap topo_down EXIT INT TERM

cp "$HERE/probe.py" "$HERE/netservers.py" "$TOPO_DIR/"
chmod 644 "$TOPO_DIR"/*.py
topo_up || { echo "not ok - topology"; exit 1; }

# IPv6 link-local on the sandbox's link: no ICMP error to a link-local source
# may ever come back, so only a reset makes a refused connection fail fast.
ip -n "$NS_SBX" -6 addr add fe80::2/64 dev s0 nodad
ip -n "$NS_GW" -6 addr add fe80::1/64 dev g0 nodad
# Docker's embedded resolver listens on 127.0.0.11 at a random port and DNATs
# :53 to it; so does this emulation.  The real port is readable in
# /proc/net/udp, so a probe that sends there straight must be refused too.
DNSPORT=$(shuf -i 20000-60000 -n 1)
topo_spawn "$NS_GW" python3 "$TOPO_DIR/netservers.py" --max-seconds 120 \
	--tcp 192.0.2.1:8080 --tcp 192.0.2.1:9090 --tcp 192.0.2.1:443 --tcp 192.0.2.1:80 \
	--tcp "[2001:db8:1::1]:8080" --tcp "[fe80::1%g0]:8080" --tcp 169.254.169.254:80 --dns 192.0.2.1:53
topo_spawn "$NS_OTHER" python3 "$TOPO_DIR/netservers.py" --max-seconds 120 \
	--tcp 198.51.100.2:8080 --dns 198.51.100.2:53
topo_spawn "$NS_SBX" python3 "$TOPO_DIR/netservers.py" --max-seconds 120 \
	--tcp 127.0.0.1:7000 --tcp "[::1]:7000" --tcp 127.0.0.11:7011 --dns "127.0.0.11:$DNSPORT"
ip netns exec "$NS_SBX" nft -f - <<NFT
table ip docker_dns_emulation {
	chain output {
		type nat hook output priority -100; policy accept;
		ip daddr 127.0.0.11 udp dport 53 dnat to 127.0.0.11:$DNSPORT
		ip daddr 127.0.0.11 tcp dport 53 dnat to 127.0.0.11:$DNSPORT
	}
}
NFT
topo_wait_tcp "$NS_GW" 192.0.2.1 8080 && topo_wait_tcp "$NS_OTHER" 198.51.100.2 8080 &&
	topo_wait_tcp "$NS_SBX" 127.0.0.1 7000 || exit 1

# MPTCP asks for IPPROTO_MPTCP (262) at the socket API; on the wire it is TCP
# (protocol 6) with MPTCP options, which is what nftables sees and resets.
BLOCKED="tcp:192.0.2.1:9090 tcp:192.0.2.1:443 tcp:198.51.100.2:8080 dns-udp:192.0.2.1:53
dns-tcp:192.0.2.1:53 dns-udp:198.51.100.2:53 dns-tcp:198.51.100.2:53 icmp:192.0.2.1
icmp:198.51.100.2 tcp:[2001:db8:1::1]:8080 tcp:[fe80::1%s0]:8080 tcp:169.254.169.254:80
dns-udp:127.0.0.11:53 dns-tcp:127.0.0.11:53 dns-udp:127.0.0.11:$DNSPORT dns-tcp:127.0.0.11:$DNSPORT
tcp:127.0.0.11:7011 mptcp:192.0.2.1:9090 mptcp:[2001:db8:1::1]:8080 mptcp:[fe80::1%s0]:8080"
ALLOWED="tcp:192.0.2.1:8080 tcp:127.0.0.1:7000 tcp:[::1]:7000 mptcp:192.0.2.1:8080 mptcp:127.0.0.1:7000"

result() {  # result FILE CHECK: the probe's verdict for CHECK
	awk -v c="$2" '$1 == c { print $2 }' "$1"
}

# 1. Without a firewall everything answers: the topology itself is sound.
ip netns exec "$NS_SBX" python3 "$TOPO_DIR/probe.py" $BLOCKED $ALLOWED > "$TOPO_DIR/baseline"
for c in $BLOCKED $ALLOWED; do
	ok "baseline without firewall: $c answers" [ "$(result "$TOPO_DIR/baseline" "$c")" = ok ]
done

# 2. The managed profile, started by the init, probed by the dropped command.
run_sandboxed() {  # run_sandboxed URL OUT CHECK...
	url=$1
	out=$2
	shift 2
	ip netns exec "$NS_SBX" env -i PATH=/usr/local/bin:/usr/bin:/bin CLI_SANDBOX_USER=nobody \
		TASK_AGENT_MODEL_BASE_URL="$url" "$INIT" -- python3 "$TOPO_DIR/probe.py" "$@" \
		> "$out" 2> "$out.err"
}
run_sandboxed http://192.0.2.1:8080 "$TOPO_DIR/managed" $BLOCKED $ALLOWED
ok "the init started the probe (exit 0)" [ $? -eq 0 ]
cat "$TOPO_DIR/managed.err"
for c in $ALLOWED; do
	ok "managed: $c connects and data flows both ways" [ "$(result "$TOPO_DIR/managed" "$c")" = ok ]
done
# Refused at once: TCP with a reset (ECONNREFUSED), the rest with ICMP
# admin-prohibited.  The probe's own bound (10 s) turns a silent drop into
# "timeout", which never passes; the figures are printed, not asserted.
for c in $BLOCKED; do
	r=$(result "$TOPO_DIR/managed" "$c")
	ms=$(awk -v c="$c" '$1 == c { print $3 }' "$TOPO_DIR/managed")
	ok "managed: $c is refused at once ($r in ${ms}ms, want $(topo_refusal "$c"))" \
		[ "$r" = "$(topo_refusal "$c")" ]
done

# 3. An https URL without a port: 443 and nothing else.
run_sandboxed https://192.0.2.1 "$TOPO_DIR/https" tcp:192.0.2.1:443 tcp:192.0.2.1:8080 tcp:192.0.2.1:80
ok "https default port: 443 connects" [ "$(result "$TOPO_DIR/https" tcp:192.0.2.1:443)" = ok ]
ok "https default port: 8080 refused" [ "$(result "$TOPO_DIR/https" tcp:192.0.2.1:8080)" = refused ]
ok "https default port: 80 refused" [ "$(result "$TOPO_DIR/https" tcp:192.0.2.1:80)" = refused ]

# 4. Another table cannot widen what ours drops: its earlier-priority accepts
#    for the other host and another gateway port change nothing.
ip netns exec "$NS_SBX" nft -f - <<'NFT'
table inet widen_attempt {
	chain output {
		type filter hook output priority -50; policy accept;
		ip daddr 198.51.100.2 accept
		ip daddr 192.0.2.1 tcp dport 9090 accept
	}
}
NFT
run_sandboxed http://192.0.2.1:8080 "$TOPO_DIR/widen" tcp:198.51.100.2:8080 tcp:192.0.2.1:9090 tcp:192.0.2.1:8080
ok "another table's accept does not widen ours: the other host stays refused" \
	[ "$(result "$TOPO_DIR/widen" tcp:198.51.100.2:8080)" = refused ]
ok "another table's accept does not widen ours: another gateway port stays refused" \
	[ "$(result "$TOPO_DIR/widen" tcp:192.0.2.1:9090)" = refused ]
ok "the gateway tuple still works beside the other table" [ "$(result "$TOPO_DIR/widen" tcp:192.0.2.1:8080)" = ok ]

echo "# probe results (managed):"
sed 's/^/#   /' "$TOPO_DIR/managed"
t_done
