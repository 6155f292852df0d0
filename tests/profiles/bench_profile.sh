#!/bin/sh
# Runs bench_profile; as root, inside a throwaway network namespace with the
# real netlink load, otherwise without it.  Prints figures, asserts success.
# usage: bench_profile.sh PATH-TO-bench_profile [N-CIDRS]
set -u
BENCH=$1
N=${2:-50000}
if [ "$(id -u)" -ne 0 ] || ! command -v ip >/dev/null; then
	exec "$BENCH" "$N"
fi
NS="csbench$$"
ip netns add "$NS" || exec "$BENCH" "$N"
trap 'ip netns del "$NS" 2>/dev/null' EXIT INT TERM
# firewall_apply reads the table back from the kernel and compares it
ip netns exec "$NS" "$BENCH" --apply "$N"
