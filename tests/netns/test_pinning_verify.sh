#!/bin/sh
# --verify-only in an interactive pod with the pinning resolver (issue 33,
# item 4), on real packets in two network namespaces: the pod (192.0.2.2;
# its resolv.conf names 127.0.0.1 alone, as dnsPolicy None gives it) and a
# server namespace (192.0.2.1; the rotating test upstream DNS on 192.0.2.53,
# an echo listener on 192.0.2.100-115).  As in a pod: the firewall init
# container (--firewall-only, root, CLI_SANDBOX_DNS=pinned,
# CLI_SANDBOX_DNS_UPSTREAM), the resolver sidecar (its own uid, NET_ADMIN),
# then the agent container (--verify-only, nobody, no capability at all).
#
# The agent proves by behaviour, one line each: an allowed name resolves
# through 127.0.0.1:53 and connects; a subdomain of it gets NXDOMAIN; direct
# DNS to the upstream is refused at once.  Each check is also shown failing
# (71, the command never runs): no resolver, a resolver that answers
# subdomains, a firewall that lets DNS to the upstream out, a firewall
# without the pinned set.  Root only.
#
# usage: test_pinning_verify.sh RESOLVER INIT
. "$(cd "$(dirname "$0")/.." && pwd)/lib/tap.sh"

RESOLVER=$1
INIT=$2
HERE=$(cd "$(dirname "$0")" && pwd)
TAG="cspv$$"
DIR=$(mktemp -d)
chmod 755 "$DIR"
mkdir "$DIR/mark"
chmod 777 "$DIR/mark"
MARK=$DIR/mark/ran
R_UID=$(t_free_id 33100)
NOBODY=$(id -u nobody)
NOGROUP=$(id -g nobody)
NONE="--reuid $NOBODY --regid $NOGROUP --clear-groups --inh-caps -all --bounding-set -all"
RESOLVER_PID=
# shellcheck source=tests/netns/pinning_topology.sh
. "$HERE/pinning_topology.sh"
trap pin_cleanup EXIT INT TERM

stop() {  # stop PID: ends one process this test started
	kill "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

# in_pod CMD...: in the pod's namespace, with the pod's resolv.conf
# (127.0.0.1) bound over the machine's in a private mount namespace
in_pod() {
	# shellcheck disable=SC2016 # the inner shell expands its own arguments
	ip netns exec "$SBX" unshare -m sh -c 'mount --bind "$1" /etc/resolv.conf && shift && exec "$@"' sh "$DIR/resolv.conf" "$@"
}

# The pod's ConfigMap: what every container of it reads.
POD_ENV="PATH=/usr/bin:/bin CLI_SANDBOX_USER=nobody CLI_SANDBOX_EGRESS_PROFILE=interactive CLI_SANDBOX_DNS=pinned
CLI_SANDBOX_RESOLVER_UID=$R_UID CLI_SANDBOX_DNS_UPSTREAM=192.0.2.53 CLI_SANDBOX_ALLOW=rotate.test:8080"

firewall() {  # firewall ENV...: the init container, root; its status in $DIR/fw.rc
	# shellcheck disable=SC2086 # the environment is a list of assignments
	in_pod timeout 60 env -i "$@" "$INIT" --firewall-only -- true >"$DIR/fw.out" 2>"$DIR/fw.err"
	echo $? >"$DIR/fw.rc"
}

agent() {  # agent NAME: the agent container; its status in $DIR/NAME.rc
	rm -f "$MARK"
	# shellcheck disable=SC2086 # $NONE and $POD_ENV split on purpose
	in_pod timeout 60 setpriv $NONE -- env -i $POD_ENV "$INIT" --verify-only -- sh -c "touch $MARK; exit 7" \
		>"$DIR/$1.out" 2>"$DIR/$1.err"
	echo $? >"$DIR/$1.rc"
	sed "s/^/#   $1: /" "$DIR/$1.err"
}
rc() { cat "$DIR/$1.rc"; }

refused() {  # refused NAME WORDS: 71, the line holds WORDS, the command never ran
	agent "$1"
	ok "$1: --verify-only stops with 71 (got $(rc "$1"))" [ "$(rc "$1")" = 71 ]
	ok "$1: its line says '$2'" grep -q -- "$2" "$DIR/$1.err"
	ok "$1: the command never ran" [ ! -e "$MARK" ]
}

# start_resolver [OPTION...]: the sidecar, as its own uid, started as root
# with no capability but the ones a pod may give it (no CAP_SETPCAP: a
# first resolver could not change its uid without it)
start_resolver() {
	spawn "$SBX" "$DIR/resolver.log" setpriv --inh-caps -all --bounding-set -all,+net_admin,+net_bind_service,+setuid,+setgid -- \
		"$RESOLVER" --upstream 192.0.2.53 --allow rotate.test:8080 --user "$R_UID:$R_UID" "$@"
	RESOLVER_PID=$LAST_PID
}

pin_namespaces
# ---- control: set elements with a timeout and an expiration ----------------
pin_kernel_control plain
# ---- topology ---------------------------------------------------------------
pin_link
# a default route, as a pod has: without one, a probe of an address off the
# subnet fails on routing (ENETUNREACH) before the firewall sees it.  The
# server namespace forwards nothing.
ip -n "$SBX" route add default via 192.0.2.1
pin_servers /usr/bin/python3
echo "nameserver 127.0.0.1" >"$DIR/resolv.conf"
chmod 644 "$DIR/resolv.conf"

# ---- the firewall init container ---------------------------------------------
# shellcheck disable=SC2086 # a list of assignments
firewall $POD_ENV
ok "the firewall init container programs the pinned firewall (exit $(rc fw))" [ "$(rc fw)" = 0 ]
t_note <"$DIR/fw.err"
ip netns exec "$SBX" nft list chain inet cli_sandbox output >"$DIR/output.nft" 2>&1
ok "the upstream rule names CLI_SANDBOX_DNS_UPSTREAM's address for the resolver's uid alone, though resolv.conf names 127.0.0.1" \
	grep -q "meta skuid $R_UID meta l4proto udp ct original ip daddr 192.0.2.53 ct original proto-dst 53 accept" "$DIR/output.nft"
ok "and no upstream rule names 127.0.0.1" \
	sh -c "grep -q 'meta skuid $R_UID' '$DIR/output.nft' && ! grep -q 'meta skuid $R_UID .*daddr 127.0.0.1' '$DIR/output.nft'"

# ---- 1. no resolver: nothing answers on 127.0.0.1:53 ---------------------------
refused noresolver "nothing answers DNS on 127.0.0.1:53"

# wait_resolver: until the resolver just started answers the allowed name (pin_wait_answer).
# shellcheck disable=SC2086 # $NONE is a list of options
wait_resolver() { pin_wait_answer ip netns exec "$SBX" setpriv $NONE /usr/bin/python3 "$HERE/pinning_client.py" lookup rotate.test; }

# ---- 2. the resolver sidecar: proven, the command runs -------------------------
start_resolver
wait_resolver
before=$(wc -l <"$DIR/upstream.log")
agent good
ok "with the sidecar, --verify-only runs the command and its status comes through (got $(rc good))" [ "$(rc good)" = 7 ]
ok "the command ran" [ -e "$MARK" ]
ok "one line: the allowed name resolved through 127.0.0.1:53 and connected" \
	grep -q "pinned DNS: rotate.test (CLI_SANDBOX_ALLOW) resolved through 127.0.0.1:53 to 192.0.2.1[01][0-9] .* and connected on port 8080" "$DIR/good.err"
ok "one line: a subdomain got NXDOMAIN" \
	grep -q "pinned DNS: cs-verify-[0-9a-f]*\.rotate\.test, a subdomain of rotate.test, got NXDOMAIN from 127.0.0.1:53" "$DIR/good.err"
ok "one line: direct DNS to the upstream refused at once" \
	grep -q "pinned DNS: direct DNS refused at once (UDP and TCP) to the upstream 192.0.2.53 and to 203.0.113.1" "$DIR/good.err"
ok "exactly three check lines, then the verified line" \
	sh -c "[ \$(grep -c 'pinned DNS: ' '$DIR/good.err') -eq 3 ] && grep -q 'verified: uid=$NOBODY .*no capabilities.*pinned DNS proven for rotate.test:8080' '$DIR/good.err'"
after_log=$(tail -n +$((before + 1)) "$DIR/upstream.log")
case $after_log in
*cs-verify*) t_fail "the subdomain never reached the upstream" "$after_log" ;;
*) t_pass "the subdomain never reached the upstream (its log since: $(printf '%s' "$after_log" | tr '\n' ' '))" ;;
esac

# ---- 3. a resolver that answers subdomains --------------------------------------
stop "$RESOLVER_PID"
start_resolver --listen 127.0.0.1:5300
spawn "$SBX" "$DIR/leaky.out" /usr/bin/python3 "$HERE/pinning_leaky.py" rotate.test 5300
i=0
until ip netns exec "$SBX" /usr/bin/python3 "$HERE/pinning_client.py" lookup any.rotate.test 2>/dev/null | grep -q '^NOERROR'; do
	i=$((i + 1))
	[ $i -le 100 ] || { echo "Bail out! the leaky stand-in never answered"; exit 1; }
	sleep 0.1
done
refused leaky "instead of NXDOMAIN"
stop "$LAST_PID"
stop "$RESOLVER_PID"

# ---- 4. a firewall that lets DNS to the upstream out -----------------------------
start_resolver
wait_resolver
ip netns exec "$SBX" nft insert rule inet cli_sandbox output ip daddr 192.0.2.53 udp dport 53 accept
refused widened "udp 192.0.2.53:53 (the upstream) got through"

# ---- 5. a firewall without the pinned set (plain interactive) ----------------------
# shellcheck disable=SC2086 # a list of assignments
firewall PATH=/usr/bin:/bin CLI_SANDBOX_USER=nobody CLI_SANDBOX_EGRESS_PROFILE=interactive CLI_SANDBOX_ALLOW=rotate.test:8080
ok "a plain interactive firewall replaces it (exit $(rc fw))" [ "$(rc fw)" = 0 ]
refused notpinned "got SERVFAIL from 127.0.0.1:53"

t_done
