#!/bin/sh
# The readback of CLI_SANDBOX_DNS=pinned's dynamic set (issue 33), against a
# real kernel in a namespace of its own: the set is verified by its
# definition (flags, key, timeout, size), its elements only when each
# expires within the set's timeout (the kernel reports an element's own
# timeout only when it differs from the set's) and has an address outside
# the forbidden blocks.
# usage: test_pinning_readback.sh PATH-TO-readback_check
set -u
TOOL=$1
. "$(cd "$(dirname "$0")/.." && pwd)/lib/tap.sh"
NS="csprb$$"
trap 'ip netns del "$NS" 2>/dev/null' EXIT INT TERM
ip netns add "$NS" || { echo "Bail out! cannot create a network namespace"; exit 1; }
ip -n "$NS" link set lo up
run() { ip netns exec "$NS" env READBACK_PINNED=1 "$@"; }

ok "the pinned ruleset is programmed (firewall_apply: batch and readback)" run "$TOOL" apply
ok "and reads back as planned with an empty set" run "$TOOL" verify
run nft add element inet cli_sandbox pinned '{ 192.0.2.10 . 443 timeout 900s expires 900s, 198.51.100.7 . 8080 timeout 900s expires 60s }'
ok "elements with a timeout and an expiration are the resolver's: accepted" run "$TOOL" verify
run nft add element inet cli_sandbox pinned '{ 169.254.169.254 . 80 timeout 900s expires 900s }'
out=$(run "$TOOL" verify 2>&1)
case $out in *"holds a forbidden address"*) t_pass "a forbidden address in the set is refused ($out)" ;;
*) t_fail "a forbidden address in the set is refused" "$out" ;; esac
run nft delete element inet cli_sandbox pinned '{ 169.254.169.254 . 80 }'
ok "once it is gone the set reads back again" run "$TOOL" verify
run nft add element inet cli_sandbox pinned '{ 192.0.2.11 . 443 timeout 2h }'
out=$(run "$TOOL" verify 2>&1)
case $out in *"longer timeout"*) t_pass "an element that outlives the set's timeout is refused ($out)" ;;
*) t_fail "an element that outlives the set's timeout is refused" "$out" ;; esac
run nft delete element inet cli_sandbox pinned '{ 192.0.2.11 . 443 }'

# the definition: another timeout or size is not the planned set
run nft -f - <<'NFT'
flush chain inet cli_sandbox output
delete set inet cli_sandbox pinned
add set inet cli_sandbox pinned { type ipv4_addr . inet_service; flags timeout; timeout 1h; size 65536; }
NFT
out=$(run "$TOOL" verify 2>&1)
case $out in *"another timeout"*) t_pass "a set with another timeout is refused ($out)" ;;
*) t_fail "a set with another timeout is refused" "$out" ;; esac
run "$TOOL" apply >/dev/null 2>&1
run nft -f - <<'NFT'
flush chain inet cli_sandbox output
delete set inet cli_sandbox pinned
add set inet cli_sandbox pinned { type ipv4_addr . inet_service; flags timeout; timeout 15m; size 1000000; }
NFT
out=$(run "$TOOL" verify 2>&1)
case $out in *"size cap"*) t_pass "a set with another size cap is refused ($out)" ;;
*) t_fail "a set with another size cap is refused" "$out" ;; esac
run "$TOOL" apply >/dev/null 2>&1
run nft -f - <<'NFT'
flush chain inet cli_sandbox output
delete set inet cli_sandbox pinned
add set inet cli_sandbox pinned { type ipv4_addr . inet_service; size 65536; }
NFT
out=$(run "$TOOL" verify 2>&1)
case $out in *"other flags"* | *"another timeout"*) t_pass "a set without flags timeout is refused ($out)" ;;
*) t_fail "a set without flags timeout is refused" "$out" ;; esac
t_done
