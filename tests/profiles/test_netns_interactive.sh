#!/bin/sh
# The interactive profile with real packets and a real resolver (root only).
#
# Topology from tests/netns/topology.sh: sandbox 192.0.2.2 -- gateway
# 192.0.2.1 / 198.51.100.1 -- other 198.51.100.2; here "other" also holds
# 198.51.100.10 (api.test), .11 (other.test, in no profile) and .20 (the
# fixture's GitHub "git" range).  The gateway runs our DNS server, the only
# nameserver of the sandbox's resolv.conf (bind-mounted inside unshare
# --mount); "other" runs a second DNS server that the sandbox must not reach.
# A profile override in a temporary CLI_SANDBOX_PROFILE_DIR names the test
# hosts.  Every address is in 192.0.2.0/24 or 198.51.100.0/24, no packet
# leaves the namespaces, and every wait is bounded.
# usage: test_netns_interactive.sh PATH-TO-cli-sandbox-init PATH-TO-dns_stub_probe
set -u
INIT=$1
STUB_PROBE=$2
HERE=$(cd "$(dirname "$0")" && pwd)
NETNS="$HERE/../netns"
. "$NETNS/topology.sh"
trap topo_down EXIT INT TERM

cp "$NETNS/probe.py" "$NETNS/netservers.py" "$HERE/dns_server.py" "$TOPO_DIR/"
chmod 644 "$TOPO_DIR"/*.py
topo_up || { echo "not ok - topology"; exit 1; }
for a in 198.51.100.10 198.51.100.11 198.51.100.20; do
	ip -n "$NS_OTHER" addr add "$a/32" dev o0
done

# The profile directory: the override names api.test on 443 and takes
# SSH (22) to the "git" list of a GitHub meta document.
PROF="$TOPO_DIR/profiles"
mkdir "$PROF"
cat > "$PROF/interactive.json" <<'EOF'
{ "version": 1,
  "common": {
    "domains": [ { "name": "api.test", "ports": [443] } ],
    "ranges": [ { "file": "github-meta.json", "format": "github-meta", "lists": ["git"], "ports": [22] } ] } }
EOF
echo '{ "web": [], "api": [], "git": ["198.51.100.20/32", "2001:db8:20::/48"] }' > "$PROF/github-meta.json"
BAD="$TOPO_DIR/bad-profiles"
mkdir "$BAD"
cp "$PROF/interactive.json" "$BAD/"
echo '{ "web": [], "api": [], "git": ["198.51.100.20/32", "198.51.100.0/33"] }' > "$BAD/github-meta.json"
echo "nameserver 192.0.2.1" > "$TOPO_DIR/resolv.conf"
chmod -R a+rX "$TOPO_DIR"

topo_spawn "$NS_GW" python3 "$TOPO_DIR/dns_server.py" --max-seconds 120 --listen 192.0.2.1:53 \
	--name api.test=198.51.100.10 --name other.test=198.51.100.11 --name model.test=198.51.100.2 \
	2> "$TOPO_DIR/dns.log"
# A second nameserver, for the fast path's fallback: it never answers a
# name's first query.
ip -n "$NS_GW" addr add 192.0.2.53/32 dev g0
echo "nameserver 192.0.2.53" > "$TOPO_DIR/resolv-late.conf"
chmod a+r "$TOPO_DIR/resolv-late.conf"
topo_spawn "$NS_GW" python3 "$TOPO_DIR/dns_server.py" --max-seconds 120 --listen 192.0.2.53:53 --ignore-first \
	--name api.test=198.51.100.10 --name model.test=198.51.100.2 2> "$TOPO_DIR/dns-late.log"
topo_spawn "$NS_GW" python3 "$TOPO_DIR/netservers.py" --max-seconds 120 --tcp 192.0.2.1:9090
topo_spawn "$NS_OTHER" python3 "$TOPO_DIR/netservers.py" --max-seconds 120 \
	--tcp 198.51.100.10:443 --tcp 198.51.100.10:8443 --tcp 198.51.100.11:443 \
	--tcp 198.51.100.20:22 --tcp 198.51.100.20:443 --tcp 198.51.100.2:8080 --dns 198.51.100.2:53
topo_wait_tcp "$NS_GW" 192.0.2.1 9090 && topo_wait_tcp "$NS_GW" 192.0.2.1 53 && topo_wait_tcp "$NS_GW" 192.0.2.53 53 &&
	topo_wait_tcp "$NS_OTHER" 198.51.100.20 22 || exit 1

ALLOWED="tcp:198.51.100.10:443 tcp:198.51.100.20:22 tcp:198.51.100.2:8080 dns-udp:192.0.2.1:53
dns-tcp:192.0.2.1:53"
BLOCKED="tcp:198.51.100.10:8443 tcp:198.51.100.11:443 tcp:198.51.100.20:443 dns-udp:198.51.100.2:53
dns-tcp:198.51.100.2:53"
HOSTNET="tcp:192.0.2.1:9090"

result() {  # result FILE CHECK: the probe's verdict for CHECK
	awk -v c="$2" '$1 == c { print $2 }' "$1"
}
# run_init NS OUT [VAR=VALUE...] -- INIT-ARGS...: the init, interactive, with
# our resolv.conf and profile directory, in its own mount namespace.
run_init() {
	ns=$1
	out=$2
	shift 2
	vars=""
	while [ "$1" != "--" ]; do
		vars="$vars $1"
		shift
	done
	shift
	# shellcheck disable=SC2086  # $vars holds VAR=VALUE words without spaces
	# (RESOLV_FILE, when set, is bound instead of our resolv.conf;
	# HOSTS_FILE and NSSWITCH_FILE, when set, replace /etc/hosts and
	# /etc/nsswitch.conf in the same way)
	ip netns exec "$ns" unshare --mount --propagation private \
		sh -c 'mount --bind "$0" /etc/resolv.conf &&
			{ [ -z "$HOSTS_FILE" ] || mount --bind "$HOSTS_FILE" /etc/hosts; } &&
			{ [ -z "$NSSWITCH_FILE" ] || mount --bind "$NSSWITCH_FILE" /etc/nsswitch.conf; } &&
			exec "$@"' "${RESOLV_FILE:-$TOPO_DIR/resolv.conf}" \
		env -i PATH=/usr/local/bin:/usr/bin:/bin CLI_SANDBOX_USER=nobody ${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} \
		CLI_SANDBOX_EGRESS_PROFILE=interactive CLI_SANDBOX_PROFILE_DIR="$PROF" \
		TASK_AGENT_MODEL_BASE_URL=http://model.test:8080 $vars "$INIT" "$@" > "$out" 2> "$out.err"
}
probe() {  # probe NS OUT [VAR=VALUE...]: the probe as the sandboxed command
	ns=$1
	out=$2
	shift 2
	run_init "$ns" "$out" "$@" -- -- python3 "$TOPO_DIR/probe.py" $ALLOWED $BLOCKED $HOSTNET
}
expect() {  # expect FILE WHAT VERDICT CHECK...
	f=$1
	what=$2
	want=$3
	shift 3
	for c in "$@"; do
		r=$(result "$f" "$c")
		if [ "$want" = ok ]; then
			ok "$what: $c connects" [ "$r" = ok ]
		else
			ok "$what: $c is refused fast ($r)" [ "$r" = "$(topo_refusal "$c")" ]
		fi
	done
}

# 1. Without a firewall everything answers: the topology itself is sound.
ip netns exec "$NS_SBX" python3 "$TOPO_DIR/probe.py" $ALLOWED $BLOCKED $HOSTNET > "$TOPO_DIR/baseline"
expect "$TOPO_DIR/baseline" "baseline without firewall" ok $ALLOWED $BLOCKED $HOSTNET

# 2. The dry-run names every destination and where it comes from.
run_init "$NS_SBX" "$TOPO_DIR/dry" -- --dry-run
ok "--dry-run exits 0" [ $? -eq 0 ]
ok "--dry-run: api.test resolved, from the profile" \
	grep -q '^# allow tcp port 443 to 198.51.100.10  <- profile common: api.test$' "$TOPO_DIR/dry"
ok "--dry-run: the model endpoint resolved" \
	grep -q '^# allow tcp port 8080 to 198.51.100.2  <- model endpoint (TASK_AGENT_MODEL_BASE_URL): model.test$' "$TOPO_DIR/dry"
ok "--dry-run: SSH to the git range, from the range file" \
	grep -q '^# allow tcp port 22 to 198.51.100.20  <- github-meta.json git (22)$' "$TOPO_DIR/dry"
ok "the init asked our nameserver (the bind-mounted resolv.conf)" grep -q '^query api.test 1$' "$TOPO_DIR/dns.log"
ok "no table after a dry run" [ -z "$(ip netns exec "$NS_SBX" nft list ruleset)" ]

# 2b. The resolver's fast path (profiles/dns_stub.h): every name asked at
# once from one socket, where glibc asks each from a socket of its own; a
# name the server does not know goes on to glibc; /etc/hosts and an
# nsswitch.conf other than "files dns" keep glibc's way.
#
# Nothing here depends on the machine's load.  Whether the init's fast path
# gets its answers within its 1 s window (dns_stub.h) is the machine's
# business, so the checks are on what the init did whatever the timing: the
# server logs every query, in arrival order and before it answers, with the
# asking socket's port.  That the fast path's answers are taken is asserted
# with the fast path alone (dns_stub_probe) given a 60 s window, against the
# same server; that glibc takes over when the window passes, against a
# server that never answers a name's first query.
DNSLOG="$TOPO_DIR/dns.log"
mark() { wc -l < "$DNSLOG" > "$DNSLOG.mark"; }
since_mark() { sed -n "$(($(cat "$DNSLOG.mark") + 1)),\$p" "$DNSLOG"; }
ports_of() {  # ports_of NAME...: the distinct ports those names were asked from, since the mark
	for n in "$@"; do
		since_mark | awk -v n="$n" '$1 == "client" && $2 == n { print $4 }'
	done | sort -u | wc -l
}
batch_ports() {  # batch_ports NAME...: the ports that asked every one of these names, since the mark
	since_mark | awk -v names="$*" '
		BEGIN { k = split(names, want, " "); for (i = 1; i <= k; i++) w[want[i]] = 1 }
		$1 == "client" && ($2 in w) && !seen[$4 " " $2]++ { count[$4]++ }
		END { for (p in count) if (count[p] == k) print p }'
}
asked_again() {  # asked_again NAME: how many times NAME was asked after its first query, since the mark
	# (the batch asks each name once; any later query is glibc's: counted
	# by query, not by port, as a new socket may get a closed one's port)
	since_mark | awk -v n="$1" '$1 == "client" && $2 == n { k++ } END { print (k > 1 ? k - 1 : 0) }'
}
printf 'hosts: files dns\n' > "$TOPO_DIR/nsswitch-plain.conf"
printf '127.0.0.1 localhost\n' > "$TOPO_DIR/hosts-plain"
chmod a+r "$TOPO_DIR/nsswitch-plain.conf" "$TOPO_DIR/hosts-plain"

# The fast path alone: its answers stand, one socket asked them all.
mark
timeout 90 ip netns exec "$NS_SBX" "$STUB_PROBE" 192.0.2.1 "$TOPO_DIR/resolv.conf" "$TOPO_DIR/nsswitch-plain.conf" \
	"$TOPO_DIR/hosts-plain" 60000 api.test model.test unknown.test > "$TOPO_DIR/stub" 2>&1
sed 's/^/# stub: /' "$TOPO_DIR/stub"
ok "fast path alone: api.test's answer is taken" grep -qx 'api.test answered 198.51.100.10' "$TOPO_DIR/stub"
ok "fast path alone: model.test's answer is taken" grep -qx 'model.test answered 198.51.100.2' "$TOPO_DIR/stub"
ok "fast path alone: NXDOMAIN is left to glibc" grep -qx 'unknown.test unanswered' "$TOPO_DIR/stub"
ok "fast path alone: the three were asked from one socket ($(ports_of api.test model.test unknown.test) ports)" \
	[ "$(ports_of api.test model.test unknown.test)" -eq 1 ]

# The init: the same batch first, then glibc for what it left.
mark
run_init "$NS_SBX" "$TOPO_DIR/fast" CLI_SANDBOX_ALLOW=unknown.test:443 -- --dry-run
ok "fast path: the dry-run exits 0" [ $? -eq 0 ]
BATCH=$(batch_ports api.test model.test unknown.test | head -n 1)
ok "fast path: api.test, model.test and unknown.test were asked together from one socket (port ${BATCH:-none})" \
	[ -n "$BATCH" ]
ok "fast path: both resolved" sh -c "grep -q 'to 198.51.100.10  <- profile common: api.test\$' '$TOPO_DIR/fast' &&
	grep -q 'to 198.51.100.2  <- model endpoint' '$TOPO_DIR/fast'"
ok "fast path: a name the server does not know is asked again by glibc" \
	[ "$(asked_again unknown.test)" -ge 1 ]
ok "fast path: ... and glibc's answer stands: it does not resolve (a warning)" \
	grep -q 'unknown.test (CLI_SANDBOX_ALLOW) does not resolve to an IPv4 address' "$TOPO_DIR/fast.err"
# Not asserted (the machine's load decides it): whether the batch's answers
# came within the window, or glibc asked those names again.
echo "# fast path: glibc asked again $(($(asked_again api.test) + $(asked_again model.test))) times for the 2 names the batch answered (0 unless the 1 s window was missed)"

# The fallback: a server that leaves every name's first query unanswered, so
# the batch's window passes on any machine; glibc then asks each name again
# and its answers stand.
DNSLOG="$TOPO_DIR/dns-late.log"
mark
RESOLV_FILE="$TOPO_DIR/resolv-late.conf" run_init "$NS_SBX" "$TOPO_DIR/late" -- --dry-run
ok "window passed: the dry-run exits 0" [ $? -eq 0 ]
BATCH=$(batch_ports api.test model.test | head -n 1)
ok "window passed: the batch asked api.test and model.test together from one socket (port ${BATCH:-none})" \
	[ -n "$BATCH" ]
ok "window passed: the server left those two queries unanswered" \
	[ "$(since_mark | awk '$1 == "ignored" { print $4 }' | sort -u | tr '\n' ' ')" = "$BATCH " ]
AGAIN_API=$(asked_again api.test)
AGAIN_MODEL=$(asked_again model.test)
ok "window passed: glibc asked each name again ($AGAIN_API, $AGAIN_MODEL times)" \
	[ "$AGAIN_API" -ge 1 -a "$AGAIN_MODEL" -ge 1 ]
ok "window passed: glibc's answers stand" sh -c "grep -q 'to 198.51.100.10  <- profile common: api.test\$' '$TOPO_DIR/late' &&
	grep -q 'to 198.51.100.2  <- model endpoint' '$TOPO_DIR/late'"
DNSLOG="$TOPO_DIR/dns.log"

printf '127.0.0.1 localhost\n198.51.100.11 api.test\n' > "$TOPO_DIR/hosts"
chmod a+r "$TOPO_DIR/hosts"
mark
HOSTS_FILE="$TOPO_DIR/hosts" run_init "$NS_SBX" "$TOPO_DIR/hosts-dry" -- --dry-run
ok "hosts file: api.test comes from /etc/hosts, as glibc answers it" \
	grep -q '^# allow tcp port 443 to 198.51.100.11  <- profile common: api.test$' "$TOPO_DIR/hosts-dry"
ok "hosts file: api.test was not asked over DNS" [ "$(ports_of api.test)" -eq 0 ]
printf 'hosts: dns files\n' > "$TOPO_DIR/nsswitch.conf"
chmod a+r "$TOPO_DIR/nsswitch.conf"
mark
NSSWITCH_FILE="$TOPO_DIR/nsswitch.conf" run_init "$NS_SBX" "$TOPO_DIR/nss-dry" -- --dry-run
ok "nsswitch not 'files dns': the names still resolve" \
	grep -q '^# allow tcp port 443 to 198.51.100.10  <- profile common: api.test$' "$TOPO_DIR/nss-dry"
ok "nsswitch not 'files dns': glibc asked each name from its own socket (no batch)" \
	[ "$(ports_of api.test)" -ge 1 -a "$(ports_of model.test)" -ge 1 -a -z "$(batch_ports api.test model.test)" ]

# 3. A real start: the profile's names on their ports, DNS to resolv.conf's
#    nameserver only, nothing else (the gateway's /24 included).
probe "$NS_SBX" "$TOPO_DIR/interactive"
ok "interactive: the init started the probe (exit 0)" [ $? -eq 0 ]
sed 's/^/# stderr: /' "$TOPO_DIR/interactive.err"
expect "$TOPO_DIR/interactive" interactive ok $ALLOWED
expect "$TOPO_DIR/interactive" interactive refused $BLOCKED $HOSTNET

# 4. CLI_SANDBOX_ALLOW_HOST_NETWORK=true adds the gateway's /24 and nothing else.
ip netns exec "$NS_SBX" nft delete table inet cli_sandbox
probe "$NS_SBX" "$TOPO_DIR/hostnet" CLI_SANDBOX_ALLOW_HOST_NETWORK=true
ok "host network: exit 0" [ $? -eq 0 ]
expect "$TOPO_DIR/hostnet" "host network" ok $ALLOWED $HOSTNET
expect "$TOPO_DIR/hostnet" "host network" refused $BLOCKED
ok "host network: the rule names 192.0.2.0/24" \
	sh -c "ip netns exec '$NS_SBX' nft list chain inet cli_sandbox output | grep -q 'ip daddr 192.0.2.0/24 accept'"

# 5. SKIP_EGRESS_FIREWALL=true programs nothing at all.
NS_SKIP="$TOPO_TAG-skip"
topo_ns "$NS_SKIP" || exit 1
run_init "$NS_SKIP" "$TOPO_DIR/skip" SKIP_EGRESS_FIREWALL=true -- -- sh -c 'echo started'
rc=$?
ok "skip: exit 0 (got $rc)" [ $rc -eq 0 ]
ok "skip: the command ran" [ "$(cat "$TOPO_DIR/skip")" = started ]
ok "skip: no table, no ruleset at all" [ -z "$(ip netns exec "$NS_SKIP" nft list ruleset)" ]
ok "skip: the init warns loudly" grep -q 'NO FIREWALL' "$TOPO_DIR/skip.err"

# 6. A range file with a bad entry stops the start with 78, names the file
#    and the entry, programs nothing and never runs the command.
NS_BAD="$TOPO_TAG-bad"
topo_ns "$NS_BAD" || exit 1
PROF=$BAD
run_init "$NS_BAD" "$TOPO_DIR/bad" -- -- sh -c 'echo started'
rc=$?
ok "bad range file: exit 78 (got $rc)" [ $rc -eq 78 ]
ok "bad range file: the message names the file and the entry" \
	grep -q "error: $BAD/github-meta.json: git\[1\] '198.51.100.0/33'" "$TOPO_DIR/bad.err"
ok "bad range file: the command never ran" [ ! -s "$TOPO_DIR/bad" ]
ok "bad range file: nothing programmed" [ -z "$(ip netns exec "$NS_BAD" nft list ruleset)" ]
sed 's/^/# stderr: /' "$TOPO_DIR/bad.err"

# 7. Docker's embedded resolver, emulated: resolv.conf names 127.0.0.11, whose
#    :53 is DNATed to a random port where a root-owned forwarder listens
#    inside the sandbox's namespace and forwards to its upstream (the other
#    host's DNS server).  The forwarder answers nothing itself, so an answer
#    proves its upstream query got out; the command's own query to that
#    upstream, and to the forwarder's real port, stay refused.
ip netns exec "$NS_SBX" nft delete table inet cli_sandbox
FWDPORT=$(shuf -i 20000-60000 -n 1)
topo_spawn "$NS_SBX" python3 "$TOPO_DIR/netservers.py" --max-seconds 120 \
	--dns "127.0.0.11:$FWDPORT" --forward 198.51.100.2
ip netns exec "$NS_SBX" nft -f - <<NFT
table ip docker_dns_emulation {
	chain output {
		type nat hook output priority -100; policy accept;
		ip daddr 127.0.0.11 udp dport 53 dnat to 127.0.0.11:$FWDPORT
		ip daddr 127.0.0.11 tcp dport 53 dnat to 127.0.0.11:$FWDPORT
	}
}
NFT
topo_wait_tcp "$NS_SBX" 127.0.0.11 "$FWDPORT" || exit 1
echo "nameserver 127.0.0.11" > "$TOPO_DIR/resolv.conf"
PROF="$TOPO_DIR/profiles"
DOCKER_OK="dns-udp:127.0.0.11:53 dns-tcp:127.0.0.11:53"
DOCKER_REFUSED="dns-udp:198.51.100.2:53 dns-tcp:198.51.100.2:53 dns-udp:127.0.0.11:$FWDPORT
dns-tcp:127.0.0.11:$FWDPORT"
# shellcheck disable=SC2086 # one check a word
ip netns exec "$NS_SBX" python3 "$TOPO_DIR/probe.py" $DOCKER_OK $DOCKER_REFUSED > "$TOPO_DIR/docker-baseline"
expect "$TOPO_DIR/docker-baseline" "docker resolver, baseline without firewall" ok $DOCKER_OK $DOCKER_REFUSED
# shellcheck disable=SC2086
run_init "$NS_SBX" "$TOPO_DIR/docker" -- -- python3 "$TOPO_DIR/probe.py" $DOCKER_OK $DOCKER_REFUSED
ok "docker resolver: the init started the probe (exit 0)" [ $? -eq 0 ]
expect "$TOPO_DIR/docker" "docker resolver: through its :53 and its upstream query" ok $DOCKER_OK
expect "$TOPO_DIR/docker" "docker resolver: not the command's own query" refused $DOCKER_REFUSED
sed 's/^/#   /' "$TOPO_DIR/docker"

echo "# probe results (interactive):"
sed 's/^/#   /' "$TOPO_DIR/interactive"
t_done
