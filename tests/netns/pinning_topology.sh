# tests/netns/pinning_topology.sh: the pinning resolver's test topology, shared by
# shellcheck shell=sh
# test_pinning.sh and test_pinning_verify.sh (sourced after tests/lib/tap.sh).
#
# Two network namespaces: the sandbox $SBX (192.0.2.2/24 on s0) and a server namespace $SRV
# (192.0.2.1/24 on g0; the test upstream DNS's 192.0.2.53 and an echo listener's pool
# 192.0.2.100-115, all /32 on g0). Every address stays inside the two namespaces.
#
# The caller sets TAG and DIR (a temporary directory) first; PIDS collects what spawn starts,
# and pin_cleanup (the EXIT trap) ends exactly those processes, by PID, then deletes both
# namespaces and DIR.

SBX="$TAG-sbx"
SRV="$TAG-srv"
PIDS=""

pin_cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	for p in $PIDS; do wait "$p" 2>/dev/null; done
	ip netns del "$SBX" 2>/dev/null
	ip netns del "$SRV" 2>/dev/null
	rm -rf "$DIR"
}

spawn() {  # spawn NS LOG CMD...: a background process ended by pin_cleanup; its PID in LAST_PID
	ns=$1 log=$2
	shift 2
	ip netns exec "$ns" "$@" >"$log" 2>&1 &
	PIDS="$PIDS $!"
	LAST_PID=$!  # shellcheck disable=SC2034 # read by the tests that source this
}

# pin_namespaces: both namespaces, their loopback up; bails out when this machine cannot.
pin_namespaces() {
	if ! ip netns add "$SBX" || ! ip netns add "$SRV"; then
		echo "Bail out! cannot create network namespaces"
		exit 1
	fi
	ip -n "$SBX" link set lo up
	ip -n "$SRV" link set lo up
}

# pin_kernel_control plain|refresh: tests/netns/pinning_control.sh's, in the sandbox namespace.
# shellcheck source=tests/netns/pinning_control.sh
. "$HERE/pinning_control.sh"
pin_kernel_control() { pin_control "$SBX" "$DIR" "$1"; }

# pin_link: the veth pair between the namespaces and every address the test servers use.
pin_link() {
	ip link add s0 netns "$SBX" type veth peer name g0 netns "$SRV"
	ip -n "$SBX" addr add 192.0.2.2/24 dev s0
	ip -n "$SRV" addr add 192.0.2.1/24 dev g0
	ip -n "$SRV" addr add 192.0.2.53/32 dev g0
	i=100
	while [ $i -le 115 ]; do
		ip -n "$SRV" addr add "192.0.2.$i/32" dev g0
		i=$((i + 1))
	done
	ip -n "$SBX" link set s0 up
	ip -n "$SRV" link set g0 up
}

# pin_servers PYTHON: the rotating test upstream DNS (TTL 1 s, its queries logged in
# $DIR/upstream.log) and the echo listener on 8080, then waits (bounded) until the upstream
# answers from the sandbox's namespace.
pin_servers() {
	spawn "$SRV" "$DIR/upstream.out" "$1" "$HERE/pinning_upstream.py" 192.0.2.53 "$DIR/upstream.log" 192.0.2.100 16
	spawn "$SRV" "$DIR/listener.out" "$1" "$HERE/pinning_listener.py" 8080
	i=0
	until ip netns exec "$SBX" "$1" "$HERE/pinning_client.py" direct 192.0.2.53 nothing.test 2>/dev/null | grep -q '^NXDOMAIN'; do
		i=$((i + 1))
		[ $i -le 100 ] || { echo "Bail out! the test upstream never answered"; exit 1; }
		sleep 0.1
	done
}

# pin_wait_answer COMMAND...: until COMMAND (a client's lookup of the allowed name) prints an
# answer, NOERROR 192..., from the resolver just started (100 tries, 0.1 s apart): a check made
# before it listens would see "nothing answers" instead of what it is about (under load it takes
# longer: tests/load/run-under-load.sh). Bails out with the resolver's log when it never does.
pin_wait_answer() {
	i=0
	until "$@" 2>/dev/null | grep -q '^NOERROR 192'; do
		i=$((i + 1))
		if [ $i -gt 100 ]; then
			echo "Bail out! the resolver never answered"
			t_note <"$DIR/resolver.log"
			exit 1
		fi
		sleep 0.1
	done
}
