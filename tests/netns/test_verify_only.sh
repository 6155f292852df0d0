#!/bin/sh
# The Kubernetes split with real packets: --firewall-only programs the
# firewall as root with NET_ADMIN and exits; --verify-only, started with no
# privilege at all in the same network namespace (what an agent container
# of the same pod is), proves it by behaviour and runs the command; without
# the firewall, with a silent one, or with a privilege it must not hold, it
# stops with 71 or 78 and the command never runs.  Root only.
# usage: test_verify_only.sh PATH-TO-cli-sandbox-init
set -u
INIT=$1
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/topology.sh"
trap topo_down EXIT INT TERM

cp "$HERE/netservers.py" "$TOPO_DIR/"
chmod 644 "$TOPO_DIR"/*.py
cp "$INIT" "$TOPO_DIR/init"
chmod 755 "$TOPO_DIR/init"
mkdir "$TOPO_DIR/mark"
chmod 777 "$TOPO_DIR/mark"
MARK=$TOPO_DIR/mark/ran
topo_up || { echo "not ok - topology"; exit 1; }
topo_spawn "$NS_GW" python3 "$TOPO_DIR/netservers.py" --max-seconds 200 \
	--tcp 192.0.2.1:8080 --tcp 192.0.2.1:8081 --tcp "[2001:db8:1::1]:443" \
	--tcp 169.254.169.254:80 --dns 192.0.2.1:53
topo_wait_tcp "$NS_GW" 192.0.2.1 8080 || exit 1
# The agent's resolv.conf names the gateway namespace's DNS server, which
# answers without a firewall.
printf 'nameserver 192.0.2.1\n' >"$TOPO_DIR/resolv.conf"
URL=http://192.0.2.1:8080
ENV="PATH=/usr/bin:/bin CLI_SANDBOX_USER=nobody"
NOBODY=$(id -u nobody)
NOGROUP=$(id -g nobody)

# The resolv.conf both containers see (bind-mounted in a private mount
# namespace), and variables the init and agent containers get besides these.
RESOLV=$TOPO_DIR/resolv.conf
FWENV=
AGENTENV=
# firewall URL [SETPRIV-OPTION...]: the init container, root in the namespace.
firewall() {
	url=$1
	shift
	# shellcheck disable=SC2086,SC2016 # $ENV holds several assignments; the inner shell expands $1 and $@
	timeout 30 ip netns exec "$NS_SBX" unshare --mount sh -c \
		'mount --bind "$1" /etc/resolv.conf && shift && exec "$@"' sh "$RESOLV" \
		setpriv "$@" -- env -i $ENV $FWENV TASK_AGENT_MODEL_BASE_URL="$url" \
		"$TOPO_DIR/init" --firewall-only >"$TOPO_DIR/fw.out" 2>"$TOPO_DIR/fw.err"
	echo $? >"$TOPO_DIR/fw.rc"
}
# agent NAME URL SETPRIV-OPTIONS [-- COMMAND...]: the agent container: started
# as nobody with every set empty (bounding included) unless told otherwise.
# The resolv.conf is bind-mounted in a private mount namespace.
agent() {
	name=$1
	url=$2
	opts=$3
	shift 3
	rm -f "$MARK"
	t0=$(date +%s)
	# shellcheck disable=SC2086,SC2016 # $opts and $ENV split on purpose; the inner shell expands $1 and $@
	timeout 60 ip netns exec "$NS_SBX" unshare --mount sh -c \
		'mount --bind "$1" /etc/resolv.conf && shift && exec "$@"' sh "$RESOLV" \
		setpriv $opts -- env -i $ENV $AGENTENV TASK_AGENT_MODEL_BASE_URL="$url" "$TOPO_DIR/init" --verify-only -- "$@" \
		>"$TOPO_DIR/$name.out" 2>"$TOPO_DIR/$name.err"
	echo $? >"$TOPO_DIR/$name.rc"
	echo $(($(date +%s) - t0)) >"$TOPO_DIR/$name.secs"
	sed "s/^/#   $name: /" "$TOPO_DIR/$name.err"
}
rc() { cat "$TOPO_DIR/$1.rc"; }
NONE="--reuid $NOBODY --regid $NOGROUP --clear-groups --inh-caps -all --bounding-set -all"
TOUCH="sh -c 'touch $MARK; exit 7'"

# 1. No firewall: the self-check fails closed.
eval "agent nofw $URL \"\$NONE\" $TOUCH"
ok "no firewall: --verify-only stops with 71 (got $(rc nofw))" [ "$(rc nofw)" = 71 ]
ok "no firewall: the error says the firewall is missing and names --firewall-only" \
	sh -c "grep -q 'firewall is missing' '$TOPO_DIR/nofw.err' && grep -q -- '--firewall-only' '$TOPO_DIR/nofw.err'"
ok "no firewall: the command never ran" [ ! -e "$MARK" ]

# 2. --firewall-only: the same ruleset and digest as a normal start, then exit 0.
# shellcheck disable=SC2086
env -i $ENV TASK_AGENT_MODEL_BASE_URL=$URL "$INIT" --dry-run >"$TOPO_DIR/dry.nft"
digest=$(sed -n 's/^# ruleset sha256: //p' "$TOPO_DIR/dry.nft")
firewall $URL --inh-caps -all --bounding-set -all,+net_admin
ok "--firewall-only with NET_ADMIN only exits 0 (got $(rc fw))" [ "$(rc fw)" = 0 ]
ok "--firewall-only prints the start line with the dry-run's digest" \
	grep -q "firewall up: profile=managed allow=\[tcp/8080:192.0.2.1\] .*sha256=$digest" "$TOPO_DIR/fw.err"
ip netns exec "$NS_SBX" nft list ruleset >"$TOPO_DIR/live.nft"
ip netns add "$TOPO_TAG-ref" && TOPO_NETNS="$TOPO_NETNS $TOPO_TAG-ref"
ip netns exec "$TOPO_TAG-ref" nft -f "$TOPO_DIR/dry.nft" &&
	ip netns exec "$TOPO_TAG-ref" nft list ruleset >"$TOPO_DIR/ref.nft"
ok "--firewall-only leaves the dry-run's ruleset in the kernel" cmp -s "$TOPO_DIR/live.nft" "$TOPO_DIR/ref.nft"

# 3. The agent side: nothing held, the behaviour proven, the command run.
eval "agent good $URL \"\$NONE\" $TOUCH"
ok "--verify-only with no privilege runs the command, its status comes through (got $(rc good))" [ "$(rc good)" = 7 ]
ok "--verify-only: the command ran" [ -e "$MARK" ]
ok "--verify-only: one line says what was proven, with the expected digest" \
	grep -q "verified: .*gateway tcp 192.0.2.1:8080 connected.*refused at once.*self-check [0-9.]* ms.*sha256=$digest" "$TOPO_DIR/good.err"
ok "--verify-only: the line says the digest is this configuration's, not read from the kernel" \
	grep -q "not read from the kernel" "$TOPO_DIR/good.err"
# shellcheck disable=SC2016 # expanded by the command's shell
agent status $URL "$NONE" sh -c 'grep -E "^(Uid|Gid|Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs):" /proc/self/status'
ok "--verify-only: the command runs as nobody, every capability set empty, no_new_privs 1" sh -c "
	grep -Eq '^Uid:[[:space:]]+${NOBODY}[[:space:]]+${NOBODY}[[:space:]]+${NOBODY}[[:space:]]+${NOBODY}\$' '$TOPO_DIR/status.out' &&
	[ \$(grep -Ec '^Cap(Inh|Prm|Eff|Bnd|Amb):[[:space:]]+0+\$' '$TOPO_DIR/status.out') -eq 5 ] &&
	grep -Eq '^NoNewPrivs:[[:space:]]+1\$' '$TOPO_DIR/status.out'"
# As PID 1 of its own PID namespace: supervises, the status comes through.
rm -f "$MARK"
# shellcheck disable=SC2086
timeout 60 ip netns exec "$NS_SBX" unshare --pid --fork setpriv $NONE -- env -i $ENV TASK_AGENT_MODEL_BASE_URL=$URL \
	"$TOPO_DIR/init" --verify-only -- sh -c 'echo $$ >'"$MARK"'; exit 5' 2>"$TOPO_DIR/pid1.err"
r=$?
ok "--verify-only as PID 1: the command runs as its child and its status comes through (got $r)" \
	sh -c "[ $r -eq 5 ] && [ \"\$(cat '$MARK')\" -gt 1 ]"

# 4. Privileges it must not hold: 78, the command never runs.
refused() {  # refused NAME WORD SETPRIV-OPTIONS: 78, the error contains WORD
	eval "agent $1 $URL \"\$3\" $TOUCH"
	ok "$1: --verify-only stops with 78 (got $(rc "$1")), naming '$2'" \
		sh -c "[ \"\$(cat '$TOPO_DIR/$1.rc')\" = 78 ] && grep -q -- '$2' '$TOPO_DIR/$1.err'"
	ok "$1: the command never ran" [ ! -e "$MARK" ]
}
refused root runAsNonRoot "--inh-caps -all --bounding-set -all"
refused gid0 "gid 0" "--reuid $NOBODY --regid 0 --clear-groups --inh-caps -all --bounding-set -all"
refused group0 "supplementary group 0" "--reuid $NOBODY --regid $NOGROUP --groups 0 --inh-caps -all --bounding-set -all"
refused ambient "holds capabilities" "--reuid $NOBODY --regid $NOGROUP --clear-groups --inh-caps +net_raw --ambient-caps +net_raw --bounding-set -all,+net_raw"
refused bounding "bounding set" "--reuid $NOBODY --regid $NOGROUP --clear-groups --inh-caps -all"
refused otheruid "CLI_SANDBOX_USER is nobody" "--reuid $((NOBODY - 1)) --regid $NOGROUP --clear-groups --inh-caps -all --bounding-set -all"

# 5. A firewall for another tuple, a gateway that is down, a firewall that
# drops silently: 71, each bounded.
eval "agent othertuple http://192.0.2.1:8081 \"\$NONE\" $TOUCH"
ok "another tuple than the firewall's: 71 (got $(rc othertuple)), naming the gateway" \
	sh -c "[ \"\$(cat '$TOPO_DIR/othertuple.rc')\" = 71 ] && grep -q 'model gateway' '$TOPO_DIR/othertuple.err'"
firewall http://192.0.2.1:8082
eval "agent gwdown http://192.0.2.1:8082 \"\$NONE\" $TOUCH"
ok "the gateway down: 71 (got $(rc gwdown)), ECONNREFUSED named" \
	sh -c "[ \"\$(cat '$TOPO_DIR/gwdown.rc')\" = 71 ] && grep -q 'model gateway.*ECONNREFUSED' '$TOPO_DIR/gwdown.err'"
sed 's/reject with icmpx admin-prohibited/drop/; s/reject with tcp reset/drop/' "$TOPO_DIR/dry.nft" |
	ip netns exec "$NS_SBX" nft -f -
eval "agent silent $URL \"\$NONE\" $TOUCH"
# Bounded: the probe gives up after 2 s (a refusal) or 5 s (the gateway);
# 20 s leaves a loaded machine its margin and still tells a bound from a
# hang (timeout 60 would end that with 124).
ok "a firewall that drops instead of refusing: 71 (got $(rc silent)) within 20 s ($(cat "$TOPO_DIR/silent.secs") s)" \
	sh -c "[ \"\$(cat '$TOPO_DIR/silent.rc')\" = 71 ] && grep -q 'drops silently' '$TOPO_DIR/silent.err' && [ $(cat "$TOPO_DIR/silent.secs") -le 20 ]"
ok "silent firewall: the command never ran" [ ! -e "$MARK" ]

# 5b. Issue 23: rulesets that are not the managed one for this configuration
# but refuse the famous destinations.  Each: 71, a line naming what got
# through or answered wrongly, and the command never runs.
not_managed() {  # not_managed NAME REGEX: the agent's verdict on the ruleset in place
	eval "agent $1 $URL \"\$NONE\" $TOUCH"
	ok "$1: --verify-only stops with 71 (got $(rc "$1")), naming '$2'" \
		sh -c "[ \"\$(cat '$TOPO_DIR/$1.rc')\" = 71 ] && grep -Eq -- '$2' '$TOPO_DIR/$1.err'"
	ok "$1: the command never ran" [ ! -e "$MARK" ]
}
# The red team's generic hardening table: UDP dropped, TCP 53, TCP to
# 169.254/16 and IPv6 off loopback reset; no cli-sandbox table at all.
ip netns exec "$NS_SBX" nft flush ruleset
printf '%s\n' 'table inet hardening {' 'chain output {' \
	'type filter hook output priority filter; policy accept;' \
	'meta l4proto udp drop' 'tcp dport 53 reject with tcp reset' \
	'ip daddr 169.254.0.0/16 meta l4proto tcp reject with tcp reset' \
	'meta nfproto ipv6 oif != "lo" meta l4proto tcp reject with tcp reset' \
	'meta nfproto ipv6 oif != "lo" drop' '}' '}' | ip netns exec "$NS_SBX" nft -f -
not_managed generic 'udp 169.254.169.254:80 .*dropped \(EPERM\) without the ICMP admin-prohibited'
# A wider allowlist: the managed ruleset with the gateway's /24 on its port.
ip netns exec "$NS_SBX" nft flush ruleset
sed 's|ip daddr 192.0.2.1 tcp dport 8080 accept|ip daddr 192.0.2.0/24 tcp dport 8080 accept|' "$TOPO_DIR/dry.nft" |
	ip netns exec "$NS_SBX" nft -f -
ok "the wider allowlist is in place" sh -c "ip netns exec '$NS_SBX' nft list ruleset | grep -q '192.0.2.0/24 tcp dport 8080 accept'"
not_managed wider 'tcp 192.0.2.254:8080 .*pod.s own subnet.*got through'
# The interactive profile with an IPv6-only resolv.conf (an IPv6-primary
# cluster), as the red team ran it: the image's range files (here the
# fixtures) open a provider's ranges; DNS has no IPv4 nameserver to open.
ip netns exec "$NS_SBX" nft flush ruleset
mkdir -p "$TOPO_DIR/profiles"
cp "$HERE/../profiles/fixtures/github-meta.json" "$HERE/../profiles/fixtures/goog.json" \
	"$HERE/../profiles/fixtures/cloud.json" "$TOPO_DIR/profiles/"
chmod 755 "$TOPO_DIR/profiles"
chmod 644 "$TOPO_DIR/profiles"/*.json
printf 'nameserver 2001:db8:1::53\n' >"$TOPO_DIR/resolv6.conf"
RESOLV=$TOPO_DIR/resolv6.conf
FWENV="CLI_SANDBOX_EGRESS_PROFILE=interactive CLI_SANDBOX_PROFILE_DIR=$TOPO_DIR/profiles"
AGENTENV="CLI_SANDBOX_PROFILE_DIR=$TOPO_DIR/profiles"
# (its resolver child drops to the user: SETUID and SETGID besides NET_ADMIN)
firewall $URL --inh-caps -all --bounding-set -all,+net_admin,+setuid,+setgid
ok "the interactive init container ran (got $(rc fw))" [ "$(rc fw)" = 0 ]
not_managed interactive 'a provider range that only the interactive profile opens.*got through'
# The same profile data and resolv.conf with the managed ruleset: it passes.
FWENV=
ip netns exec "$NS_SBX" nft flush ruleset
firewall $URL --inh-caps -all --bounding-set -all,+net_admin
eval "agent managed6 $URL \"\$NONE\" $TOUCH"
ok "the managed ruleset, an IPv6-only resolv.conf, the profile data present: passes (got $(rc managed6))" \
	sh -c "[ \"\$(cat '$TOPO_DIR/managed6.rc')\" = 7 ] && [ -e '$MARK' ] && grep -q 'verified: ' '$TOPO_DIR/managed6.err'"
RESOLV=$TOPO_DIR/resolv.conf
AGENTENV=
# A managed ruleset for another gateway address (the port case is above).
ip netns exec "$NS_SBX" nft flush ruleset
firewall http://192.0.2.3:8080 --inh-caps -all --bounding-set -all,+net_admin
not_managed otheraddr 'model gateway'

# 6. Modes that make no sense stop with 78.
firewall $URL --inh-caps -all --bounding-set -all
ok "--firewall-only without NET_ADMIN: 71 naming NET_ADMIN (got $(rc fw))" \
	sh -c "[ \"\$(cat '$TOPO_DIR/fw.rc')\" = 71 ] && grep -q NET_ADMIN '$TOPO_DIR/fw.err'"
# shellcheck disable=SC2086
timeout 60 env -i $ENV CLI_SANDBOX_EGRESS_PROFILE=interactive SKIP_EGRESS_FIREWALL=true \
	"$INIT" --firewall-only >/dev/null 2>"$TOPO_DIR/skip.err"
r=$?
ok "--firewall-only with SKIP_EGRESS_FIREWALL=true: 78 (got $r)" sh -c "[ $r -eq 78 ] && grep -q SKIP_EGRESS_FIREWALL '$TOPO_DIR/skip.err'"
# shellcheck disable=SC2086
timeout 60 env -i $ENV CLI_SANDBOX_EGRESS_PROFILE=interactive "$INIT" --verify-only true 2>"$TOPO_DIR/inter.err"
r=$?
ok "--verify-only in the interactive profile: 78 (got $r)" sh -c "[ $r -eq 78 ] && grep -q managed '$TOPO_DIR/inter.err'"
# shellcheck disable=SC2086
timeout 60 env -i $ENV TASK_AGENT_MODEL_BASE_URL=$URL "$INIT" --firewall-only --verify-only true 2>"$TOPO_DIR/both.err"
r=$?
ok "--firewall-only and --verify-only together: 78 (got $r)" sh -c "[ $r -eq 78 ] && grep -q 'repeated option' '$TOPO_DIR/both.err'"
t_done
