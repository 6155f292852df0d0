# tests/netns/pinning_control.sh: the control every pinning test starts with, in one place
# shellcheck shell=sh
# (sourced after tests/lib/tap.sh by tests/netns/pinning_topology.sh and tests/image/pinning.sh).

# pin_control NS DIR plain|refresh: the control every pinning test starts with: the kernel takes
# set elements with a timeout and an expiration (and, with "refresh", renews an element's
# expiry on a second add, which keeping a name alive needs). Without it: a SKIP with the
# kernel's own reason, and exit 77.
pin_control() {
	first=''
	[ "$3" != refresh ] || first='add element inet pinctl s { 192.0.2.9 . 1 timeout 60s expires 1s }'
	if ! ip netns exec "$1" nft -f - 2>"$2/ctl.err" <<NFT
table inet pinctl {
	set s { type ipv4_addr . inet_service; flags timeout; }
}
$first
add element inet pinctl s { 192.0.2.9 . 1 timeout 60s expires 60s }
NFT
	then
		t_skip "this kernel or nft cannot add set elements with a timeout and an expiration, which the pinning resolver needs: $(head -n 1 "$2/ctl.err")"
		t_done
		exit 77
	fi
	if [ -n "$first" ] && ! ip netns exec "$1" nft list set inet pinctl s | grep -q 'expires [5][0-9]s'; then
		t_skip "this kernel does not refresh a set element's expiry on a second add (set element updates, Linux 6.x): the pinning resolver cannot keep names alive here"
		t_done
		exit 77
	fi
	ip netns exec "$1" nft delete table inet pinctl
	if [ -n "$first" ]; then
		t_pass "control: the kernel takes elements with timeout and expiration and refreshes them on a second add"
	else
		t_pass "control: the kernel takes set elements with a timeout and an expiration"
	fi
}
