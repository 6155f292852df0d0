#!/bin/sh
# Large interval sets through the real netlink path: they are paged over
# several messages inside one transaction and read back element by element.
# usage: test_large_sets.sh PATH-TO-apply_sets
set -u
TOOL=$1
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/topology.sh"
trap topo_down EXIT INT TERM
NS="$TOPO_TAG-big"
topo_ns "$NS" || exit 1
for n in 1 1000 50000; do
	out=$(ip netns exec "$NS" "$TOOL" "$n")
	ok "$n ranges programmed and verified by readback: $out" [ $? -eq 0 ]
done
count=$(ip netns exec "$NS" nft -j list set inet cli_sandbox allow_tcp_443 |
	python3 -c 'import json,sys; print(len([x for x in json.load(sys.stdin)["nftables"] if "set" in x][0]["set"]["elem"]))')
expected=$(echo "$out" | sed -n 's/.*set_elements=\([0-9]*\).*/\1/p')
ok "nft lists as many elements as the model holds ($count = $expected)" [ "$count" = "$expected" ]
t_done
