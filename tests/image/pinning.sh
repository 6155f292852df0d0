#!/bin/sh
# The pinning resolver as the sidecar of an --interactive run (issue 33), through the host
# script, under podman and under the private dockerd of tests/dockerd.sh. For each engine:
#   - a test upstream DNS server (tests/netns/pinning_upstream.py, which logs every query)
#     answers rotate.test; an echo listener sits on its addresses, port 8080;
#   - `cli-sandbox --interactive --allow rotate.test:8080 shell -- -c SCRIPT`: the sandbox
#     resolves rotate.test through the resolver and connects; a subdomain gets NXDOMAIN,
#     TXT REFUSED, another name NXDOMAIN, none of them reaching the upstream (its log); DNS
#     straight to the upstream or to another server fails;
#   - the resolver's container, read from the host's /proc: uid 1003, CAP_NET_ADMIN alone,
#     no_new_privs, seccomp; killed, lookups fail closed and nothing more reaches the upstream;
#   - the run's end removes the resolver's container.
# Under podman also: Ctrl-C (SIGINT to the run's process group) removes it too, and
# --dry-run shows the sidecar's command (and --no-pinning none).
# Traffic: podman in namespaces on 192.0.2.0/24 (the sandbox joins them with --network
# ns:); dockerd on an --internal network on 198.51.100.0/24, never its .1.
#
# usage: sh tests/image/pinning.sh    (root; the image must ship the resolver)
# environment: CLI_SANDBOX_TEST_IMAGE (default localhost/cli-sandbox:claude),
#              CLI_SANDBOX_PYTHON_IMAGE (default localhost/cli-sandbox-python:test)
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
# shellcheck disable=SC1091 # the shared TAP helpers and the private dockerd
. "$ROOT/tests/lib/tap.sh"
# shellcheck disable=SC1091
. "$ROOT/tests/dockerd.sh"
IMAGE=${CLI_SANDBOX_TEST_IMAGE:-localhost/cli-sandbox:claude}
PYIMAGE=${CLI_SANDBOX_PYTHON_IMAGE:-localhost/cli-sandbox-python:test}
TAG=cspin$$
SBX=$TAG-sbx SRV=$TAG-srv NET=$TAG-net
RLIMITS="--ulimit nofile=1024:1024 --ulimit nproc=1000:1000"
WORK=$(mktemp -d /tmp/cli-sandbox-pinning.XXXXXX)
chmod 755 "$WORK"
PIDS='' SEEN=''

cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	for p in $PIDS; do wait "$p" 2>/dev/null; done
	for c in $SEEN; do podman rm -f "$c" >/dev/null 2>&1; done  # the resolvers of this test's runs, if left
	dockerd_stop
	ip netns del "$SBX" 2>/dev/null
	ip netns del "$SRV" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# shellcheck disable=SC2034 # read by tests/lib/tap.sh's ok
T_QUIET=1
note() { sed 's/^/#   /'; }
bail() { echo "Bail out! $*"; exit 1; }
is() {  # is WANT GOT NAME: a check that GOT is WANT
	if [ "$2" = "$1" ]; then t_pass "$3"; else t_fail "$3" "$2"; fi
}
result() { awk -v c="$2" '$1 == c { $1 = ""; sub(/^ /, ""); print; exit }' "$1"; }

[ "$(id -u)" -eq 0 ] || bail "run as root (namespaces, dockerd)"
podman image exists "$IMAGE" || bail "no image $IMAGE: run image/build.sh first"
cp "$HERE/pinning_probe.js" "$WORK/probe.js"
chmod 644 "$WORK/probe.js"

# ---- controls: the image's resolver reads the profile; the kernel pins --------------------
# shellcheck disable=SC2086 # RLIMITS: words
out=$(podman run --rm --runtime runc $RLIMITS --network none -e CLI_SANDBOX_EGRESS_PROFILE=interactive \
	--entrypoint /usr/local/sbin/cli-sandbox-resolver \
	"$IMAGE" --names-for claude 2>&1)
case $out in
*"CLI_SANDBOX_DNS=pinned"*) t_pass "control: the image's resolver takes its names from the sandbox's configuration (--names-for)" ;;
*) bail "the image's cli-sandbox-resolver has no --names-for ($out): rebuild the image (image/build.sh)" ;;
esac
{ ip netns add "$SBX" && ip netns add "$SRV"; } || bail "cannot create network namespaces"
ip -n "$SBX" link set lo up
# shellcheck source=tests/netns/pinning_control.sh
. "$ROOT/tests/netns/pinning_control.sh"
pin_control "$SBX" "$WORK" plain

# The script the sandbox runs (bash, as the CLI's user): the checks, a sign for the test,
# then (once the test has killed the resolver) the checks again.
# shellcheck disable=SC2016 # expanded by the sandbox's bash
SCRIPT='cd /workspace && node /probe.js lookup:rotate.test connect:rotate.test:8080 "a:sub.rotate.test@127.0.0.1" \
	"a:other.test@127.0.0.1" "txt:rotate.test@127.0.0.1" "a:rotate.test@127.0.0.1" "a:rotate.test@$UP" \
	"a:rotate.test@$OTHER" >phase1.out 2>&1; cp /etc/resolv.conf resolv.seen; touch phase1.done
	i=0; while [ ! -e phase2.go ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i + 1)); done
	node /probe.js lookup:rotate.test "a:rotate.test@127.0.0.1" >phase2.out 2>&1'

# run ENGINE WS ENGINE-ARGS: the host script, in the background, as a person runs it
run() {
	_e=$1 _ws=$2 _args=$3
	mkdir -p "$_ws" "$WORK/home-$_e"
	chown 1000:1000 "$_ws"
	(cd "$_ws" && env HOME="$WORK/home-$_e" CLI_SANDBOX_HOME="$WORK/home-$_e/.config/cli-sandbox" \
		CLI_SANDBOX_ENGINE="$_e" CLI_SANDBOX_IMAGE="$IMAGE" PATH="$WORK/bin:$PATH" \
		CLI_SANDBOX_ENGINE_GLOBAL_ARGS="$([ "$_e" = podman ] && echo --runtime runc)" \
		CLI_SANDBOX_ENGINE_ARGS="$RLIMITS $_args -v $WORK/probe.js:/probe.js:ro -e UP=$UP -e OTHER=$OTHER" \
		timeout 300 sh "$ROOT/host/cli-sandbox" --interactive --allow rotate.test:8080 --workspace "$_ws" \
		shell -- -c "$SCRIPT" </dev/null >"$WORK/$_e.out" 2>"$WORK/$_e.err"
	echo $? >"$WORK/$_e.rc") &
	RUN_PID=$!
}

# wait_file PATH SECONDS
wait_file() {
	_i=0
	while [ ! -e "$1" ] && [ "$_i" -lt $(($2 * 10)) ]; do sleep 0.1; _i=$((_i + 1)); done
	[ -e "$1" ]
}

# scenario ENGINE CLIENT-E: the checks of one engine (E: the engine's client command)
scenario() {
	_e=$1 E=$2 ws=$WORK/ws-$1 log=$WORK/upstream-$1.log
	run "$_e" "$ws" "$NETWORDS"
	if ! wait_file "$ws/phase1.done" 240; then
		t_fail "$_e: the sandbox ran its checks" "$(tail -5 "$WORK/$_e.err")"
		kill "$RUN_PID" 2>/dev/null
		wait "$RUN_PID" 2>/dev/null
		return 1
	fi
	note <"$ws/phase1.out"
	grep -E 'resolver|DNS:|firewall up' "$WORK/$_e.err" | cut -c1-200 | note
	r=$(result "$ws/phase1.out" lookup:rotate.test)
	case $r in "ok $POOL"*) t_pass "$_e: an allowed name resolves in the sandbox ($r)" ;; *) t_fail "$_e: an allowed name resolves" "$r" ;; esac
	r=$(result "$ws/phase1.out" connect:rotate.test:8080)
	case $r in "ok $POOL"*) t_pass "$_e: and its address connects, pinned on demand ($r)" ;; *) t_fail "$_e: the allowed name connects" "$r" ;; esac
	r=$(result "$ws/phase1.out" a:sub.rotate.test@127.0.0.1)
	is ENOTFOUND "$r" "$_e: a subdomain of an allowed name: NXDOMAIN"
	r=$(result "$ws/phase1.out" a:other.test@127.0.0.1)
	is ENOTFOUND "$r" "$_e: another name: NXDOMAIN"
	r=$(result "$ws/phase1.out" txt:rotate.test@127.0.0.1)
	is EREFUSED "$r" "$_e: TXT of an allowed name: REFUSED"
	r=$(result "$ws/phase1.out" "a:rotate.test@$UP")
	case $r in ok*) t_fail "$_e: DNS straight to the upstream fails" "$r" ;; *) t_pass "$_e: DNS straight to the upstream ($UP) fails ($r)" ;; esac
	r=$(result "$ws/phase1.out" "a:rotate.test@$OTHER")
	case $r in ok*) t_fail "$_e: DNS to another server fails" "$r" ;; *) t_pass "$_e: DNS to another server ($OTHER) fails ($r)" ;; esac
	ok "$_e: no subdomain, other name or TXT reached the upstream (its log)" \
		sh -c "! grep -E 'sub\\.rotate\\.test|other\\.test|^16 ' '$log'"
	ok "$_e: the upstream saw the resolver's A queries for rotate.test" grep -q '^1 rotate\.test$' "$log"
	ok "$_e: the sandbox's resolv.conf names 127.0.0.1 first" sh -c "grep '^nameserver' '$ws/resolv.seen' | head -n 1 | grep -qx 'nameserver 127.0.0.1'"
	ok "$_e: and then the resolver's upstream ($RESOLVER_UP)" grep -qx "nameserver $RESOLVER_UP" "$ws/resolv.seen"

	# the resolver's container, from the host
	ct=$($E ps --filter name=cli-sandbox-dns- --format '{{.Names}}' | head -n 1)
	pid=$($E inspect -f '{{.State.Pid}}' "$ct" 2>/dev/null)
	SEEN="$SEEN $ct"
	if [ -n "$ct" ] && [ -n "$pid" ] && [ -r "/proc/$pid/status" ]; then
		echo "# $ct: $(grep -E '^(Uid|CapEff|CapPrm|CapBnd|NoNewPrivs|Seccomp):' "/proc/$pid/status" | tr -s '\t\n' '  ')"
		ok "$_e: the resolver runs as uid 1003 (real, effective, saved)" sh -c "awk '/^Uid:/ {exit !(\$2 == 1003 && \$3 == 1003 && \$4 == 1003)}' /proc/$pid/status"
		ok "$_e: its container holds CAP_NET_ADMIN alone (CapEff, CapPrm)" sh -c "grep -q '^CapEff:[[:space:]]*0000000000001000$' /proc/$pid/status && grep -q '^CapPrm:[[:space:]]*0000000000001000$' /proc/$pid/status"
		ok "$_e: no_new_privs and a seccomp filter" sh -c "grep -q '^NoNewPrivs:[[:space:]]*1$' /proc/$pid/status && grep -q '^Seccomp:[[:space:]]*2$' /proc/$pid/status"
		ok "$_e: its root is read-only" [ "$($E inspect -f '{{.HostConfig.ReadonlyRootfs}}' "$ct")" = true ]
	else
		t_fail "$_e: the resolver's container is running" "${ct:-none}"
	fi
	# killed: lookups fail closed, nothing more reaches the upstream
	[ -z "$ct" ] || $E kill "$ct" >/dev/null 2>&1
	sleep 1
	before=$(wc -l <"$log")
	touch "$ws/phase2.go"
	wait "$RUN_PID"
	note <"$ws/phase2.out"
	r=$(result "$ws/phase2.out" lookup:rotate.test)
	case $r in ok*) t_fail "$_e: the resolver killed, a lookup fails closed" "$r" ;; *) t_pass "$_e: the resolver killed, a lookup fails closed ($r)" ;; esac
	r=$(result "$ws/phase2.out" a:rotate.test@127.0.0.1)
	case $r in ok*) t_fail "$_e: and a query to 127.0.0.1 gets no answer" "$r" ;; *) t_pass "$_e: and a query to 127.0.0.1 gets no answer ($r)" ;; esac
	ok "$_e: nothing more reached the upstream" [ "$(wc -l <"$log")" = "$before" ]
	ok "$_e: the run ended with its command's status (0; got $(cat "$WORK/$_e.rc"))" [ "$(cat "$WORK/$_e.rc")" = 0 ]
	ok "$_e: the run's end removed the resolver's container" [ -z "$($E ps -aq --filter "name=$ct")" ]
	[ "$(cat "$WORK/$_e.rc")" = 0 ] || tail -5 "$WORK/$_e.err" | note
}

# ---- podman: namespaces on 192.0.2.0/24 -------------------------------------------------
ip link add "${TAG}s" netns "$SBX" type veth peer name "${TAG}g" netns "$SRV"
ip -n "$SBX" addr add 192.0.2.2/24 dev "${TAG}s"
ip -n "$SBX" link set "${TAG}s" up
ip -n "$SRV" link set lo up
for a in 192.0.2.1/24 192.0.2.53/32 192.0.2.54/32 192.0.2.100/32 192.0.2.101/32; do ip -n "$SRV" addr add "$a" dev "${TAG}g"; done
ip -n "$SRV" link set "${TAG}g" up
ip -n "$SBX" route add default via 192.0.2.1
ip netns exec "$SRV" python3 "$ROOT/tests/netns/pinning_upstream.py" 192.0.2.53 "$WORK/upstream-podman.log" 192.0.2.100 2 >"$WORK/up.out" 2>&1 &
PIDS="$PIDS $!"
ip netns exec "$SRV" python3 "$ROOT/tests/netns/pinning_upstream.py" 192.0.2.54 "$WORK/other-podman.log" 192.0.2.100 2 >"$WORK/other.out" 2>&1 &
PIDS="$PIDS $!"
ip netns exec "$SRV" python3 "$ROOT/tests/netns/pinning_listener.py" 8080 >"$WORK/listener.out" 2>&1 &
PIDS="$PIDS $!"
UP=192.0.2.53 OTHER=192.0.2.54 POOL=192.0.2.10 RESOLVER_UP=192.0.2.53
NETWORDS="--network ns:/run/netns/$SBX --dns $UP"
sleep 1
scenario podman podman
ok "podman: the other server saw no query for rotate.test" sh -c "! grep -q rotate '$WORK/other-podman.log' 2>/dev/null"

# Ctrl-C at the terminal: the run's process group gets SIGINT; the resolver goes with it.
# (/bin/kill: dash's kill takes no process group after --.)
mkdir -p "$WORK/ws-int" && chown 1000:1000 "$WORK/ws-int"
(cd "$WORK/ws-int" && exec setsid env HOME="$WORK/home-podman" CLI_SANDBOX_HOME="$WORK/home-podman/.config/cli-sandbox" \
	CLI_SANDBOX_ENGINE=podman CLI_SANDBOX_IMAGE="$IMAGE" CLI_SANDBOX_ENGINE_GLOBAL_ARGS="--runtime runc" \
	CLI_SANDBOX_ENGINE_ARGS="$RLIMITS $NETWORDS" \
	sh "$ROOT/host/cli-sandbox" --interactive --workspace "$WORK/ws-int" shell -- -c 'touch started; exec sleep 60' \
	</dev/null >"$WORK/int.out" 2>&1) &
INT_PID=$!
if wait_file "$WORK/ws-int/started" 120; then
	SEEN="$SEEN $(podman ps --filter name=cli-sandbox-dns- --format '{{.Names}}')"
	ok "Ctrl-C: the resolver ran beside the sandbox" [ -n "$(podman ps -q --filter name=cli-sandbox-dns-)" ]
	/bin/kill -s INT -- "-$INT_PID" 2>/dev/null
	i=0
	while kill -0 "$INT_PID" 2>/dev/null && [ $i -lt 450 ]; do sleep 0.1; i=$((i + 1)); done
	ok "Ctrl-C: the run ended" sh -c "! kill -0 $INT_PID 2>/dev/null"
	tail -n 3 "$WORK/int.out" | note
	ok "Ctrl-C: its resolver's container is gone" [ -z "$(podman ps -aq --filter name=cli-sandbox-dns-)" ]
else
	t_fail "Ctrl-C: the run started" "$(tail -3 "$WORK/int.out")"
fi
/bin/kill -s KILL -- "-$INT_PID" 2>/dev/null
wait "$INT_PID" 2>/dev/null

# --dry-run: the sidecar's command; --no-pinning: none
dry() {
	(cd "$WORK/ws-int" && env HOME="$WORK/home-podman" CLI_SANDBOX_HOME="$WORK/home-podman/.config/cli-sandbox" \
		CLI_SANDBOX_ENGINE=podman CLI_SANDBOX_IMAGE="$IMAGE" sh "$ROOT/host/cli-sandbox" --dry-run "$@" claude 2>/dev/null)
}
out=$(dry --interactive)
ok "--dry-run --interactive: the resolver's command (its entrypoint, NET_ADMIN, --names-for claude)" \
	sh -c "printf '%s' \"\$1\" | grep -q \"'/usr/local/sbin/cli-sandbox-resolver'\" && printf '%s' \"\$1\" | grep -q \"'--names-for'\"" sh "$out"
ok "--dry-run --interactive: the sandbox joins its namespace" sh -c "printf '%s' \"\$1\" | grep -q \"'container:cli-sandbox-dns-\"" sh "$out"
out=$(dry --interactive --no-pinning)
ok "--dry-run --interactive --no-pinning: no resolver, no CLI_SANDBOX_DNS" sh -c "! printf '%s' \"\$1\" | grep -q 'cli-sandbox-resolver\|CLI_SANDBOX_DNS'" sh "$out"

# ---- dockerd: an --internal network on 198.51.100.0/24 ----------------------------------
sh "$ROOT/tests/gateway/make-python-image.sh" "$PYIMAGE" >/dev/null 2>&1 || bail "cannot build $PYIMAGE"
dockerd_start || bail "the test dockerd did not start"
{ dockerd_load "$IMAGE" && dockerd_load "$PYIMAGE"; } || bail "cannot load the images into dockerd"
mkdir -p "$WORK/bin" "$WORK/dlog"
chmod 777 "$WORK/dlog"
ln -s "$DOCKER" "$WORK/bin/docker"
"$DOCKER" network create --internal --subnet 198.51.100.0/24 "$NET" >/dev/null || bail "cannot create the internal network"
UP=198.51.100.53 OTHER=198.51.100.54 POOL=198.51.100.100 RESOLVER_UP=127.0.0.11
"$DOCKER" run -d --name "$TAG-up" --network "$NET" --ip "$UP" -v "$ROOT/tests/netns:/t:ro" -v "$WORK/dlog:/log" "$PYIMAGE" \
	python3 /t/pinning_upstream.py "$UP" /log/upstream.log "$POOL" 1 >/dev/null || bail "upstream container"
"$DOCKER" run -d --name "$TAG-other" --network "$NET" --ip "$OTHER" -v "$ROOT/tests/netns:/t:ro" -v "$WORK/dlog:/log" "$PYIMAGE" \
	python3 /t/pinning_upstream.py "$OTHER" /log/other.log "$POOL" 1 >/dev/null || bail "other DNS container"
"$DOCKER" run -d --name "$TAG-echo" --network "$NET" --ip "$POOL" -v "$ROOT/tests/netns:/t:ro" "$PYIMAGE" \
	python3 /t/pinning_listener.py 8080 >/dev/null || bail "listener container"
ln -s "$WORK/dlog/upstream.log" "$WORK/upstream-docker.log"
NETWORDS="--network $NET --dns $UP"
sleep 1
scenario docker "$DOCKER"
ok "docker: the other server saw no query for rotate.test" sh -c "! grep -q rotate '$WORK/dlog/other.log' 2>/dev/null"
t_done
