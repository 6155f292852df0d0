#!/bin/sh
# Benchmark (prints figures, asserts only that every run succeeded): the
# init's real start against `nft -f` of its own dry-run dump, both from an
# empty ruleset and timed inside the network namespace, as ratios measured
# in one run on the same machine; and PID 1's RSS while the command runs.
#
#   managed       the default profile (gateway /32), command `true`
#   50k CIDRs     interactive, one provider file of 50,000 prefixes, no names
#   provider      interactive with the built-in profile and provider files of
#                 the real documents' shape and size (tests/bench/make_ranges.py
#                 provider), names answered by a DNS server on the namespace's
#                 loopback; the command is named `claude`, so its names count
#
# Root only.  usage: ratios.sh PATH-TO-cli-sandbox-init [RUNS]
# shellcheck disable=SC2086  # $M, $B, $P and $T are lists of words on purpose
set -u
INIT=$1
RUNS=${2:-20}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../netns/topology.sh"
trap topo_down EXIT INT TERM
NS="$TOPO_TAG-ratio"
topo_ns "$NS" || exit 1
ip -n "$NS" link set lo up
T="ip netns exec $NS python3 $HERE/ratios.py"
D=$TOPO_DIR

strip_prelude() {  # the dump without its comments and `table` / `delete table` lines
	grep -v '^#' "$1" | sed '1,2d' > "$2"
}
dry_run() {  # dry_run OUT ENV...: the init's nft dump with that environment
	out=$1
	shift
	env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin CLI_SANDBOX_USER=nobody "$@" "$INIT" --dry-run -- true > "$out" 2>/dev/null &&
		head -n 40 "$out" | grep -q '^delete table inet cli_sandbox$'
}

# managed
M="TASK_AGENT_MODEL_BASE_URL=http://192.0.2.1:8080"
ok "managed: dry-run dump" dry_run "$D/managed.nft" $M
strip_prelude "$D/managed.nft" "$D/managed-bare.nft"
out=$(env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin CLI_SANDBOX_USER=nobody $M \
	$T time "$RUNS" managed "$D/managed.nft" "$D/managed-bare.nft" -- "$INIT" -- true)
ok "managed (targets: <= 0.15 of nft -f dump, <= 0.60 without prelude)" [ $? -eq 0 ]
echo "$out"
# What a managed start cannot go below, timed the same way: two process
# starts that `nft -f` does not pay both of, the init's own (--version:
# glibc's start, no work) and the command's (true), before the kernel's
# commit, which both pay alike.
out=$($T wall "$RUNS" "managed floor: the init's own start (--version)" -- "$INIT" --version)
ok "managed floor: the init's own start" [ $? -eq 0 ]
echo "$out"
out=$($T wall "$RUNS" "managed floor: the command alone (true)" -- true)
ok "managed floor: the command alone" [ $? -eq 0 ]
echo "$out"

# 50k CIDRs
mkdir -m 755 "$D/big"
python3 "$HERE/make_ranges.py" big "$D/big" 50000
B="CLI_SANDBOX_EGRESS_PROFILE=interactive CLI_SANDBOX_PROFILE_DIR=$D/big"
ok "50k CIDRs: dry-run dump" dry_run "$D/big.nft" $B
strip_prelude "$D/big.nft" "$D/big-bare.nft"
echo "# 50k CIDRs: $(grep -o ',' "$D/big.nft" | wc -l) interval elements after merging"
out=$(env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin CLI_SANDBOX_USER=nobody $B \
	$T time "$(( (RUNS + 3) / 4 ))" "50k CIDRs" "$D/big.nft" "$D/big-bare.nft" -- "$INIT" -- true)
ok "50k CIDRs (target: <= 0.5 of nft -f dump)" [ $? -eq 0 ]
echo "$out"

# interactive with provider-sized files, the built-in profile, and DNS on
# the namespace's loopback (bind-mounted resolv.conf in a mount namespace)
mkdir -m 755 "$D/prov" "$D/bin"
python3 "$HERE/make_ranges.py" provider "$D/prov"
ln -s /bin/true "$D/bin/claude"
echo "nameserver 127.0.0.1" > "$D/resolv.conf"
chmod -R a+rX "$D"
names=""
records=""
i=10
for n in github.com api.github.com codeload.github.com raw.githubusercontent.com \
	objects.githubusercontent.com release-assets.githubusercontent.com api.anthropic.com \
	claude.ai platform.claude.com console.anthropic.com statsig.anthropic.com; do
	names="$names --name $n=198.51.100.$i"
	records="$records --host-record=$n,198.51.100.$i"
	i=$((i + 1))
done
# A local resolver that answers from memory, as a container's cached
# resolver does (dnsmasq); the tests' Python responder where it is missing
# (then its own latency, ~0.2 ms a query, is part of the init's time).
if command -v dnsmasq >/dev/null; then
	echo "# provider: names answered by dnsmasq on the namespace's loopback"
	topo_spawn "$NS" dnsmasq --keep-in-foreground --conf-file=/dev/null --no-resolv --no-hosts \
		--listen-address=127.0.0.1 --bind-interfaces --port=53 --pid-file= --user=root $records 2>/dev/null
else
	echo "# provider: names answered by tests/profiles/dns_server.py (no dnsmasq)"
	topo_spawn "$NS" python3 "$HERE/../profiles/dns_server.py" --max-seconds 600 --listen 127.0.0.1:53 $names 2>/dev/null
fi
topo_wait_tcp "$NS" 127.0.0.1 53 || exit 1
P="CLI_SANDBOX_EGRESS_PROFILE=interactive CLI_SANDBOX_PROFILE_DIR=$D/prov"
in_mnt() {  # in_mnt CMD...: inside the namespace, with our resolv.conf
	# shellcheck disable=SC2016  # $0 and $@ belong to the inner shell
	ip netns exec "$NS" unshare --mount --propagation private \
		sh -c 'mount --bind "$0" /etc/resolv.conf && exec "$@"' "$D/resolv.conf" "$@"
}
in_mnt env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin CLI_SANDBOX_USER=nobody $P \
	"$INIT" --dry-run -- "$D/bin/claude" > "$D/prov.nft" 2>/dev/null
ok "provider: dry-run dump resolves the profile's names" grep -q '198\.51\.100\.' "$D/prov.nft"
strip_prelude "$D/prov.nft" "$D/prov-bare.nft"
echo "# provider: $(wc -c < "$D/prov/github-meta.json") + $(wc -c < "$D/prov/goog.json") + $(wc -c < "$D/prov/cloud.json") bytes of range files, $(grep -o ',' "$D/prov.nft" | wc -l) interval elements"
out=$(in_mnt env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin CLI_SANDBOX_USER=nobody $P \
	python3 "$HERE/ratios.py" time "$RUNS" provider "$D/prov.nft" "$D/prov-bare.nft" -- "$INIT" -- "$D/bin/claude")
ok "provider (target: <= 0.3 of nft -f dump)" [ $? -eq 0 ]
echo "$out"

# The same start against a resolver 20 ms away (the tests' DNS responder,
# answering concurrently): after the first slow answer the other names
# resolve at once, so the start pays about two round trips, where one after
# the other it would pay eleven.
topo_spawn "$NS" python3 "$HERE/../profiles/dns_server.py" --max-seconds 600 --listen 127.0.0.2:53 \
	--delay-ms 20 $names 2>/dev/null
topo_wait_tcp "$NS" 127.0.0.2 53 || exit 1
echo "nameserver 127.0.0.2" > "$D/resolv-far.conf"
chmod a+r "$D/resolv-far.conf"
# shellcheck disable=SC2016  # $0 and $@ belong to the inner shell
out=$(ip netns exec "$NS" unshare --mount --propagation private \
	sh -c 'mount --bind "$0" /etc/resolv.conf && exec "$@"' "$D/resolv-far.conf" \
	env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin CLI_SANDBOX_USER=nobody $P \
	python3 "$HERE/ratios.py" wall "$(( (RUNS + 3) / 4 ))" "provider, resolver 20 ms away" -- "$INIT" -- "$D/bin/claude")
ok "provider, resolver 20 ms away (11 names; one after the other would be >= 220 ms)" [ $? -eq 0 ]
echo "$out"

# PID 1's memory while the command runs (managed)
out=$(env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin CLI_SANDBOX_USER=nobody $M $T rss "$INIT" -- sleep 2)
ok "PID 1 memory (target: <= 1 MiB)" [ $? -eq 0 ]
echo "$out"
echo "# binary: $(stat -c %s "$INIT") bytes ($(file -b "$INIT" 2>/dev/null | cut -d, -f1-2))"
t_done
