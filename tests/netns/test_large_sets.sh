#!/bin/sh
# Large interval sets through the real netlink path: they are paged over
# several messages inside one transaction and read back element by element;
# lists above 4096 ranges are split into several sets, and real packets
# still find an address in a later set and are refused elsewhere.
# usage: test_large_sets.sh PATH-TO-apply_sets PATH-TO-cli-sandbox-init
set -u
TOOL=$1
INIT=$2
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/topology.sh"
trap topo_down EXIT INT TERM
NS="$TOPO_TAG-big"
topo_ns "$NS" || exit 1
for n in 1 1000 50000; do
	out=$(ip netns exec "$NS" "$TOOL" "$n")
	ok "$n ranges programmed and verified by readback: $out" [ $? -eq 0 ]
done
# Large lists are split into sets of at most 4096 (NF_SET_MAX_ELEMS):
# allow_tcp_443, allow_tcp_443_2, ..., each with its own accept rule.
ip netns exec "$NS" nft -j list ruleset > "$TOPO_DIR/big.json"
summary=$(python3 - "$TOPO_DIR/big.json" <<'PY'
import json, sys
items = json.load(open(sys.argv[1]))["nftables"]
sets = [x["set"] for x in items if "set" in x and x["set"]["name"].startswith("allow_tcp_443")]
rules = [x["rule"] for x in items if "rule" in x and "@allow_tcp_443" in json.dumps(x["rule"]["expr"])]
sizes = [len(s.get("elem", [])) for s in sets]
print(len(sets), sum(sizes), max(sizes), len(rules))
PY
)
set -- $summary
expected=$(echo "$out" | sed -n 's/.*set_elements=\([0-9]*\).*/\1/p')
nsets=$(echo "$out" | sed -n 's/.*sets=\([0-9]*\).*/\1/p')
ok "nft lists as many elements as the model holds ($2 = $expected)" [ "$2" = "$expected" ]
ok "the 50000 ranges are split into $nsets sets of at most 4096 ($1 sets, largest $3)" \
	[ "$1" = "$nsets" ] && [ "$1" -gt 1 ] && [ "$3" -le 4096 ]
ok "one accept rule per set ($4 rules for $1 sets)" [ "$4" = "$1" ]

# The readback of many sets reads them two at a time (a second reader on
# its own socket takes the even-numbered names): a change in a set of
# either reader is caught, and the start's line names that set.
ok "the readback of the 50000 ranges accepts them as sent" ip netns exec "$NS" "$TOOL" 50000 verify
elem() {  # elem SET: the first element of SET, as nft prints it
	ip netns exec "$NS" nft -j list set inet cli_sandbox "$1" |
		python3 -c 'import json,sys; e=[x for x in json.load(sys.stdin)["nftables"] if "set" in x][0]["set"]["elem"][0]; print(e["prefix"]["addr"] + "/" + str(e["prefix"]["len"]) if isinstance(e, dict) and "prefix" in e else e["range"][0] + "-" + e["range"][1] if isinstance(e, dict) else e)'
}
for set in allow_tcp_443_2 allow_tcp_443_3; do
	e=$(elem "$set")
	ip netns exec "$NS" nft delete element inet cli_sandbox "$set" "{ $e }"
	ip netns exec "$NS" "$TOOL" 50000 verify 2> "$TOPO_DIR/verify.err"
	ok "an element missing from $set ($e) is refused" [ $? -ne 0 ]
	ok "... and the line names $set" grep -q "set $set is missing elements" "$TOPO_DIR/verify.err"
	ip netns exec "$NS" nft add element inet cli_sandbox "$set" "{ $e }"
done
ok "put back, the readback accepts them again" ip netns exec "$NS" "$TOOL" 50000 verify

# Real packets: the interactive profile with one range file of 6,000
# non-adjacent single addresses in 1.0.0.0/8 (never sent to) and
# 198.51.100.2, which sorts after them, into the second set.
topo_up || { echo "not ok - topology"; exit 1; }
cp "$HERE/probe.py" "$HERE/netservers.py" "$TOPO_DIR/"
chmod 644 "$TOPO_DIR"/*.py
mkdir -m 755 "$TOPO_DIR/prof"
python3 - "$TOPO_DIR/prof" <<'PY'
import json, os, sys
d = sys.argv[1]
prefixes = [{"ipv4Prefix": "1.%d.%d.%d/32" % (i >> 15, (i >> 7) & 255, (i & 127) * 2)} for i in range(6000)]
prefixes.append({"ipv4Prefix": "198.51.100.2/32"})
json.dump({"syncToken": "1", "creationTime": "2026-01-01T00:00:00", "prefixes": prefixes}, open(os.path.join(d, "goog.json"), "w"))
json.dump({"version": 1, "comment": "split sets", "common": {"ranges": [{"file": "goog.json", "format": "google", "ports": [443]}]}},
          open(os.path.join(d, "interactive.json"), "w"))
PY
chmod 644 "$TOPO_DIR/prof"/*
topo_spawn "$NS_OTHER" python3 "$TOPO_DIR/netservers.py" --max-seconds 60 --tcp 198.51.100.2:443 --tcp 198.51.100.2:8443
topo_spawn "$NS_GW" python3 "$TOPO_DIR/netservers.py" --max-seconds 60 --tcp 192.0.2.1:443
topo_wait_tcp "$NS_OTHER" 198.51.100.2 443 && topo_wait_tcp "$NS_GW" 192.0.2.1 443 || exit 1
CHECKS="tcp:198.51.100.2:443 tcp:198.51.100.2:8443 tcp:192.0.2.1:443"
ip netns exec "$NS_SBX" python3 "$TOPO_DIR/probe.py" $CHECKS > "$TOPO_DIR/baseline"
ok "without a firewall all three answer" [ "$(grep -c '^[^ ]* ok ' "$TOPO_DIR/baseline")" = 3 ]
ip netns exec "$NS_SBX" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin CLI_SANDBOX_USER=nobody \
	CLI_SANDBOX_EGRESS_PROFILE=interactive CLI_SANDBOX_PROFILE_DIR="$TOPO_DIR/prof" \
	"$INIT" -- python3 "$TOPO_DIR/probe.py" $CHECKS > "$TOPO_DIR/fw" 2> "$TOPO_DIR/fw.err"
ok "the start with 6,001 ranges succeeds" [ $? -eq 0 ]
ok "its start line counts two sets" grep -q ' sets=2 ' "$TOPO_DIR/fw.err"
ok "198.51.100.2:443, in the second set, is allowed" grep -q '^tcp:198.51.100.2:443 ok ' "$TOPO_DIR/fw"
ok "198.51.100.2:8443, another port, is refused" grep -q '^tcp:198.51.100.2:8443 refused ' "$TOPO_DIR/fw"
ok "192.0.2.1:443, in no set, is refused" grep -q '^tcp:192.0.2.1:443 refused ' "$TOPO_DIR/fw"
t_done
