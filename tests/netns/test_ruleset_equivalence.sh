#!/bin/sh
# The ruleset a real start programs is the ruleset --dry-run prints: both
# dumps (nft text and JSON) loaded with the nft CLI give the same kernel
# state, bytecode included, as the init's own netlink batch.  A second start
# changes nothing, a stale table of ours is replaced, and without
# CAP_NET_ADMIN the start fails with 71 before the command runs.
# usage: test_ruleset_equivalence.sh PATH-TO-cli-sandbox-init GOLDEN-DIR
set -u
INIT=$1
GOLDEN=$2
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/topology.sh"
trap topo_down EXIT INT TERM

NS_REAL="$TOPO_TAG-real"
NS_TEXT="$TOPO_TAG-text"
NS_JSON="$TOPO_TAG-json"
NS_STALE="$TOPO_TAG-stale"
NS_GOLD="$TOPO_TAG-gold"
for ns in $NS_REAL $NS_TEXT $NS_JSON $NS_STALE $NS_GOLD; do
	topo_ns "$ns" || exit 1
	ip -n "$ns" link set lo up
done

cfg() {  # the same configuration for every run
	env -i PATH=/usr/local/bin:/usr/bin:/bin CLI_SANDBOX_USER=nobody \
		TASK_AGENT_MODEL_BASE_URL=https://198.51.100.20:8443/v1 "$@"
}
listing() {  # listing NS: the ruleset as nft prints it, and its bytecode
	ip netns exec "$1" nft list ruleset
	ip netns exec "$1" nft --debug=netlink list ruleset
}

cfg "$INIT" --dry-run > "$TOPO_DIR/dump.nft"
ok "--dry-run exits 0" [ $? -eq 0 ]
cfg "$INIT" --dry-run=json > "$TOPO_DIR/dump.json"
ok "--dry-run=json exits 0" [ $? -eq 0 ]
python3 -c 'import json,sys; json.dump(json.load(open(sys.argv[1]))["ruleset"], open(sys.argv[2], "w"))' \
	"$TOPO_DIR/dump.json" "$TOPO_DIR/ruleset.json"
ok "nft -f loads the text dump as is" ip netns exec "$NS_TEXT" nft -f "$TOPO_DIR/dump.nft"
ok "nft -j -f loads the JSON ruleset" ip netns exec "$NS_JSON" nft -j -f "$TOPO_DIR/ruleset.json"

cfg ip netns exec "$NS_REAL" "$INIT" -- true 2> "$TOPO_DIR/real.err"
ok "a real start programs the firewall and runs the command" [ $? -eq 0 ]
listing "$NS_REAL" > "$TOPO_DIR/real"
listing "$NS_TEXT" > "$TOPO_DIR/text"
listing "$NS_JSON" > "$TOPO_DIR/json"
ok "programmed ruleset == nft text dump (listing and bytecode)" cmp -s "$TOPO_DIR/real" "$TOPO_DIR/text"
ok "programmed ruleset == JSON dump (listing and bytecode)" cmp -s "$TOPO_DIR/real" "$TOPO_DIR/json"
digest=$(sed -n 's/^# ruleset sha256: //p' "$TOPO_DIR/dump.nft")
ok "the start logs the digest the dry-run printed" grep -q "sha256=$digest" "$TOPO_DIR/real.err"
ok "the digest is the SHA-256 of the dumped ruleset text" \
	[ "$(sed -n '/^table inet cli_sandbox$/,$p' "$TOPO_DIR/dump.nft" | sha256sum | cut -d' ' -f1)" = "$digest" ]

cfg ip netns exec "$NS_REAL" "$INIT" -- true 2>/dev/null
ok "a second start succeeds" [ $? -eq 0 ]
ip netns exec "$NS_REAL" nft list ruleset > "$TOPO_DIR/again"
ok "a second start leaves the same ruleset" cmp -s "$TOPO_DIR/again" "$(sed -n '1,/^}$/p' "$TOPO_DIR/real" > "$TOPO_DIR/real.list"; echo "$TOPO_DIR/real.list")"

ip netns exec "$NS_STALE" nft -f - <<'NFT'
table inet cli_sandbox {
	set stale {
		type ipv4_addr
		flags interval
		elements = { 0.0.0.0/0 }
	}
	chain output {
		type filter hook output priority filter; policy accept;
		ip daddr @stale accept
	}
	chain extra {
	}
}
table ip other_table {
	chain c {
		type filter hook output priority 10; policy accept;
	}
}
NFT
cfg ip netns exec "$NS_STALE" "$INIT" -- true 2>/dev/null
ok "a start over a stale table of ours succeeds" [ $? -eq 0 ]
ip netns exec "$NS_STALE" nft list table inet cli_sandbox > "$TOPO_DIR/stale"
ip netns exec "$NS_TEXT" nft list table inet cli_sandbox > "$TOPO_DIR/text.table"
ok "the stale table is replaced whole (no stale set, chain or rule)" cmp -s "$TOPO_DIR/stale" "$TOPO_DIR/text.table"
ok "other tables are left alone" ip netns exec "$NS_STALE" nft list table ip other_table

# Without CAP_NET_ADMIN: 71, a message naming the fix, and no command.
marker="$TOPO_DIR/ran"
cfg ip netns exec "$NS_GOLD" setpriv --bounding-set=-net_admin --inh-caps=-net_admin -- \
	"$INIT" -- touch "$marker" 2> "$TOPO_DIR/nocap.err"
rc=$?
ok "without CAP_NET_ADMIN the start exits 71 (got $rc)" [ $rc -eq 71 ]
ok "the error names the fix --cap-add=NET_ADMIN" grep -q -- "--cap-add=NET_ADMIN" "$TOPO_DIR/nocap.err"
ok "the command did not run" [ ! -e "$marker" ]
ok "the error is one line" [ "$(wc -l < "$TOPO_DIR/nocap.err")" -eq 1 ]
ok "nothing was programmed" sh -c "[ -z \"\$(ip netns exec '$NS_GOLD' nft list ruleset)\" ]"

# The golden nft text, loaded by nft, has exactly the golden netlink bytecode.
for g in managed interactive pinned; do
	ip netns exec "$NS_GOLD" nft -f "$GOLDEN/$g.nft"
	ip netns exec "$NS_GOLD" nft --debug=netlink list ruleset | grep '^  \[' > "$TOPO_DIR/gold.kernel"
	grep '^  \[' "$GOLDEN/$g.netlink" > "$TOPO_DIR/gold.ours"
	ok "golden $g: nft compiles the text to the netlink renderer's expressions" \
		cmp -s "$TOPO_DIR/gold.kernel" "$TOPO_DIR/gold.ours"
	ip netns exec "$NS_GOLD" nft delete table inet cli_sandbox
done
t_done
