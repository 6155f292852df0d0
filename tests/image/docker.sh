#!/bin/sh
# Image tests on the real Docker engine (Debian's docker.io, dockerd 20.10),
# as root, with a private daemon (tests/dockerd.sh) that changes nothing in
# this machine's network namespace, and Docker's own default seccomp profile:
#   1. the README's `docker run` line verbatim (URL, image and command
#      substituted, the test network added), under a terminal; again with
#      --cap-add=NET_RAW, which is accepted though not needed;
#   2. the capability contract under the minimal set and Docker's real default
#      set (plus NET_ADMIN);
#   3. the managed firewall on `docker network create --internal --subnet
#      198.51.100.0/24` (and 2001:db8:10::/64), with the mock gateway in a
#      container on it: the gateway tuple and nothing else, Docker's embedded
#      resolver refused at 127.0.0.11:53 and at its real ports, IPv6 (global
#      and link-local) refused at once, against a baseline where all answers;
#   4. the 78 and 71 stops, and the command never starts;
#   5. `docker run -it`: the shell gets the terminal and job control;
#   6. interactive: DNS through Docker's 127.0.0.11 works (resolv.conf names it,
#      the resolver's upstream query gets out, container names resolve), while
#      the command's own queries to that upstream and to the resolver's real
#      port stay refused;
#   7. the Docker socket (interactive): --group-add of the socket's group, and a
#      Docker CLI in the sandbox talking to the test daemon;
#   8. the host script with --engine docker.
# No container ever uses the network's .1 (the bridge in this machine's
# namespace), and every container's embedded resolver forwards to the peer
# container (--dns), never to this machine's own nameservers.
#
# usage: sh tests/image/docker.sh        (after tests/image/run.sh built the image)
# environment:
#   CLI_SANDBOX_TEST_IMAGE    the image, in podman's storage (default localhost/cli-sandbox:test)
#   CLI_SANDBOX_PYTHON_IMAGE  python3 image for the gateway and peer, built by
#                             tests/gateway/make-python-image.sh when missing
#                             (default localhost/cli-sandbox-python:test)
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$ROOT/tests/dockerd.sh"
. "$ROOT/tests/lib/tap.sh"
IMAGE=${CLI_SANDBOX_TEST_IMAGE:-localhost/cli-sandbox:test}
PYIMAGE=${CLI_SANDBOX_PYTHON_IMAGE:-localhost/cli-sandbox-python:test}
TAG=csd$$
NET=$TAG-net
GW=198.51.100.10
PEER=198.51.100.20
PEER6=2001:db8:10::20
URL=http://$GW:8080
REPLY="pong from the docker test gateway"
KEYS="-e ANTHROPIC_API_KEY=sk-ant-test-not-a-key"

WORK=$(mktemp -d /tmp/cli-sandbox-docker-test.XXXXXX)
chmod 755 "$WORK"
cleanup() {
	dockerd_stop
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# shellcheck disable=SC2034 # read by tests/lib/tap.sh's ok
T_QUIET=1  # the checked commands' output is silenced
skip() { t_skip "$@"; }
note() { sed 's/^/#   /'; }
bail() { echo "Bail out! $*"; exit 1; }
result() { awk -v c="$2" '$1 == c { print $2 }' "$1"; }
# How the firewall refuses a probe check: TCP with a reset, the rest with ICMP.
refusal() { case $1 in tcp:* | dns-tcp:* | connect:*) echo refused ;; *) echo unreachable ;; esac; }

[ "$(id -u)" -eq 0 ] || bail "run as root (dockerd)"
for c in podman script timeout python3; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing"
done
podman image exists "$IMAGE" || bail "no image $IMAGE in podman's storage: run tests/image/run.sh (or image/build.sh) first"
sh "$ROOT/tests/gateway/make-python-image.sh" "$PYIMAGE" || bail "cannot build $PYIMAGE"
dockerd_start || bail "the test dockerd did not start"
echo "# $("$DOCKER" version --format 'dockerd {{.Server.Version}}, client {{.Client.Version}}')"
{ dockerd_load "$IMAGE" && dockerd_load "$PYIMAGE"; } || bail "cannot load the images into dockerd"

D() { timeout 240 "$DOCKER" "$@"; }
# 198.51.100.0/24, not 192.0.2.0/24: the network's bridge and its .1 live in
# this machine's own namespace, and a test machine's own interface may sit on
# 192.0.2.0/24 (this one's does), which the bridge would then shadow.
"$DOCKER" network create --internal --subnet 198.51.100.0/24 --ipv6 --subnet 2001:db8:10::/64 "$NET" \
	>/dev/null || bail "cannot create the internal network"
mkdir -p "$WORK/log" "$WORK/mark" "$WORK/ws"
chmod 777 "$WORK/log" "$WORK/mark" "$WORK/ws"
cp "$HERE/probe.js" "$WORK/probe.js"
chmod 644 "$WORK/probe.js"
D run -d --name "$TAG-gw" --network "$NET" --ip "$GW" --dns "$PEER" -v "$ROOT/tests/gateway:/gw:ro" \
	-v "$WORK/log:/log" "$PYIMAGE" python3 /gw/mock_gateway.py --listen 0.0.0.0 --port 8080 \
	--reply "$REPLY" --log /log/gateway.log --max-seconds 1800 >/dev/null || bail "gateway container"
D run -d --name "$TAG-peer" --network "$NET" --ip "$PEER" --ip6 "$PEER6" -v "$ROOT/tests/netns:/t:ro" \
	"$PYIMAGE" python3 /t/netservers.py --max-seconds 1800 --answer 198.51.100.99 --tcp "[::]:8080" --dns 0.0.0.0:53 \
	>/dev/null || bail "peer container"
# The peer's link-local address, for a refusal that no ICMP error could report.
i=0
PEERLL=""
while [ -z "$PEERLL" ] && [ $i -lt 300 ]; do
	# the first eth0 link-local address that is not tentative (IFA_F_TENTATIVE 0x40)
	PEERLL=$("$DOCKER" exec "$TAG-peer" cat /proc/net/if_inet6 2>/dev/null | python3 -c '
import ipaddress, sys
for f in (l.split() for l in sys.stdin):
    if f[0].startswith("fe80") and f[5] == "eth0" and not int(f[4], 16) & 0x40:
        print(ipaddress.ip_address(bytes.fromhex(f[0]))); break')
	[ -n "$PEERLL" ] || sleep 0.1
	i=$((i + 1))
done
[ -n "$PEERLL" ] || bail "the peer has no usable link-local address"
: >"$WORK/log/gateway.log"

# sbx NAME DOCKER-RUN-ARGS... IMAGE-ARGS: a container on the test network;
# output in $WORK/NAME.{out,err,rc,gw}.
sbx() {
	name=$1
	shift
	: >"$WORK/log/gateway.log"
	D run --rm --network "$NET" --dns "$PEER" -v "$WORK/probe.js:/probe.js:ro" "$@" \
		</dev/null >"$WORK/$name.out" 2>"$WORK/$name.err"
	echo $? >"$WORK/$name.rc"
	cp "$WORK/log/gateway.log" "$WORK/$name.gw"
	echo "# $name: exit $(cat "$WORK/$name.rc"); stdout, stderr (last lines), gateway log:"
	note <"$WORK/$name.out"
	tail -5 "$WORK/$name.err" | note
	note <"$WORK/$name.gw"
}
rc_of() { cat "$WORK/$1.rc"; }
# The host script's set, which the README documents too.
MANAGED="--cap-drop=ALL --cap-add=NET_ADMIN --cap-add=SETUID --cap-add=SETGID --cap-add=SETPCAP --security-opt=no-new-privileges"

# --- 1. the README's docker run line ---------------------------------------------------
# The first `docker run` of the README, continuation lines joined, run as is
# with three substitutions: the gateway URL, the image name, and the command
# (claude -p, so that it ends).  The test network and the API key are added.
awk '/^    docker run /{on = 1} on { sub(/^ +/, ""); if (sub(/\\$/, "")) { l = l $0; next } print l $0; exit }' \
	"$ROOT/README.md" >"$WORK/readme.line"
note <"$WORK/readme.line"
readme_cmd() {  # readme_cmd EXTRA-OPTIONS COMMAND: the README line, adapted, on stdout
	sed -e "s|^docker run |\"$DOCKER\" run --network $NET --dns $PEER $KEYS $1 |" \
		-e "s|http://10\.0\.0\.5:8080|$URL|" -e "s| cli-sandbox claude\$| $IMAGE $2|" "$WORK/readme.line"
}
# shellcheck disable=SC2016 # the README spells $PWD literally
ok "the README has a docker run line with the documented options" \
	grep -q -- '--rm -it --cap-drop=ALL --cap-add=NET_ADMIN --cap-add=SETUID --cap-add=SETGID --cap-add=SETPCAP --security-opt=no-new-privileges -e TASK_AGENT_MODEL_BASE_URL=http://10.0.0.5:8080 -v "$PWD:/workspace" cli-sandbox claude$' "$WORK/readme.line"
tty_run() {  # tty_run NAME SCRIPT: SCRIPT (a file) under a pseudo-terminal, in $WORK/ws
	: >"$WORK/log/gateway.log"
	(cd "$WORK/ws" && timeout 240 script -qec "sh $2" /dev/null </dev/null >"$WORK/$1.raw" 2>&1)
	echo $? >"$WORK/$1.rc"
	tr -d '\r' <"$WORK/$1.raw" >"$WORK/$1.out"
	cp "$WORK/log/gateway.log" "$WORK/$1.gw"
	echo "# $1: exit $(rc_of "$1"); output (last lines), gateway log:"
	tail -5 "$WORK/$1.out" | note
	note <"$WORK/$1.gw"
}
readme_cmd "" "claude -p 'say pong'" >"$WORK/readme.sh"
tty_run readme "$WORK/readme.sh"
ok "README line: claude exits 0 (got $(rc_of readme))" [ "$(rc_of readme)" = 0 ]
ok "README line: claude prints the gateway's reply" grep -qF "$REPLY" "$WORK/readme.out"
ok "README line: claude called POST /v1/messages on the gateway" grep -q '^POST /v1/messages' "$WORK/readme.gw"
readme_cmd "--cap-add=NET_RAW -v $WORK/probe.js:/probe.js:ro" \
	"node /probe.js connect:$GW:8080 tcp:$PEER:8080" >"$WORK/netraw.sh"
tty_run netraw "$WORK/netraw.sh"
ok "README line + --cap-add=NET_RAW: accepted (exit $(rc_of netraw))" [ "$(rc_of netraw)" = 0 ]
ok "README line + --cap-add=NET_RAW: the gateway connects, the peer stays refused" \
	sh -c "[ '$(result "$WORK/netraw.out" "connect:$GW:8080")' = ok ] && [ '$(result "$WORK/netraw.out" "tcp:$PEER:8080")' = refused ]"

# --- 2. capability contract -----------------------------------------------------------
# shellcheck disable=SC2016 # expanded in the container
status_cmd='grep -E "^(Uid|Gid|Groups|CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs|Seccomp):" /proc/self/status;
for f in /proc/[0-9]*/status; do echo "proc $(sed -n "s/^Pid:[[:space:]]*//p" "$f") $(sed -n "s/^Uid:[[:space:]]*//p" "$f")"; done'
caps_ok() {  # caps_ok FILE BOUNDING
	grep -Eq '^Uid:[[:space:]]+1000[[:space:]]+1000[[:space:]]+1000[[:space:]]+1000$' "$1" &&
		grep -Eq '^Gid:[[:space:]]+1000[[:space:]]+1000[[:space:]]+1000[[:space:]]+1000$' "$1" &&
		[ "$(grep -Ec '^Cap(Inh|Prm|Eff|Amb):[[:space:]]+0+$' "$1")" -eq 4 ] &&
		grep -Eq "^CapBnd:[[:space:]]+$2\$" "$1" &&
		grep -Eq '^NoNewPrivs:[[:space:]]+1$' "$1" &&
		grep -Eq '^Seccomp:[[:space:]]+2$' "$1" &&
		! grep -E '^proc ' "$1" | grep -Ev '^proc [0-9]+ 1000[[:space:]]+1000[[:space:]]+1000[[:space:]]+1000$' | grep -q .
}
# shellcheck disable=SC2086 # the option lists are split on purpose
sbx caps-minimal --cap-drop ALL --cap-add NET_ADMIN --cap-add SETUID --cap-add SETGID \
	-e TASK_AGENT_MODEL_BASE_URL=$URL "$IMAGE" sh -c "$status_cmd"
ok "caps (NET_ADMIN, SETUID, SETGID): started (exit $(rc_of caps-minimal))" [ "$(rc_of caps-minimal)" = 0 ]
ok "caps (NET_ADMIN, SETUID, SETGID): uid/gid 1000, CapInh/Prm/Eff/Amb 0, NoNewPrivs 1, Docker's seccomp filter, bounding set only those three, no process as root" \
	caps_ok "$WORK/caps-minimal.out" 00000000000010c0
sbx caps-default --cap-add NET_ADMIN -e TASK_AGENT_MODEL_BASE_URL=$URL "$IMAGE" sh -c "$status_cmd"
ok "caps (dockerd's own default set + NET_ADMIN): started (exit $(rc_of caps-default))" [ "$(rc_of caps-default)" = 0 ]
ok "caps (dockerd's own default set + NET_ADMIN): every set 0, bounding too, NoNewPrivs 1, no process as root" \
	caps_ok "$WORK/caps-default.out" 0000000000000000

# --- 3. the managed firewall on an internal network ------------------------------------
LL="tcp:[$PEERLL%eth0]:8080"
BLOCKED="tcp:$PEER:8080 dns-udp:$PEER:53 dns-tcp:$PEER:53 tcp:[$PEER6]:8080 $LL
dns-udp:127.0.0.11:53 dns-tcp:127.0.0.11:53 dns-udp:127.0.0.11:real dns-tcp:127.0.0.11:real lookup:$TAG-gw"
# shellcheck disable=SC2086
sbx baseline --entrypoint node "$IMAGE" /probe.js connect:$GW:8080 $BLOCKED
for c in $BLOCKED connect:$GW:8080; do
	ok "baseline without firewall: $c answers" [ "$(result "$WORK/baseline.out" "$c")" = ok ]
done
# shellcheck disable=SC2086
sbx managed $MANAGED -e TASK_AGENT_MODEL_BASE_URL=$URL "$IMAGE" node /probe.js connect:$GW:8080 $BLOCKED
ok "managed: the init started the probe (exit $(rc_of managed))" [ "$(rc_of managed)" = 0 ]
ok "managed: the gateway tuple connects" [ "$(result "$WORK/managed.out" "connect:$GW:8080")" = ok ]
for c in $BLOCKED; do
	r=$(result "$WORK/managed.out" "$c")
	case $c in
	lookup:*) ok "managed: $c fails: no name resolves ($r)" sh -c "[ -n '$r' ] && [ '$r' != ok ]" ;;
	*) ok "managed: $c is refused at once ($r, want $(refusal "$c"))" [ "$r" = "$(refusal "$c")" ] ;;
	esac
done

# --- 4. stops ---------------------------------------------------------------------------
stopped() {  # stopped NAME DOCKER-RUN-ARGS...: the start must fail before the command runs
	name=$1
	shift
	rm -f "$WORK/mark/ran"
	sbx "$name" -v "$WORK/mark:/mark" "$@" "$IMAGE" touch /mark/ran
}
# shellcheck disable=SC2086
stopped badurl $MANAGED -e TASK_AGENT_MODEL_BASE_URL=http://0x7f.0.0.1:8080
ok "a bad URL stops the container with 78 (got $(rc_of badurl))" [ "$(rc_of badurl)" = 78 ]
ok "a bad URL: the command never started" [ ! -e "$WORK/mark/ran" ]
# shellcheck disable=SC2086
stopped skipfw $MANAGED -e TASK_AGENT_MODEL_BASE_URL=$URL -e SKIP_EGRESS_FIREWALL=true
ok "SKIP_EGRESS_FIREWALL=true in managed mode stops with 78 (got $(rc_of skipfw))" [ "$(rc_of skipfw)" = 78 ]
ok "SKIP_EGRESS_FIREWALL=true: the command never started" [ ! -e "$WORK/mark/ran" ]
stopped nonetadmin --cap-drop=ALL --cap-add=SETUID --cap-add=SETGID --cap-add=SETPCAP -e TASK_AGENT_MODEL_BASE_URL=$URL
ok "without NET_ADMIN the container stops with 71 (got $(rc_of nonetadmin))" [ "$(rc_of nonetadmin)" = 71 ]
ok "without NET_ADMIN the error names --cap-add=NET_ADMIN" grep -q -- '--cap-add=NET_ADMIN' "$WORK/nonetadmin.err"
ok "without NET_ADMIN: the command never started" [ ! -e "$WORK/mark/ran" ]
# shellcheck disable=SC2086
stopped control $MANAGED -e TASK_AGENT_MODEL_BASE_URL=$URL
ok "control: a valid start does run the command" [ -e "$WORK/mark/ran" ]

# --- 5. docker run -it: terminal and job control ----------------------------------------
cat >"$WORK/rc.bash" <<'RC'
PS1='$ '
read -r a b c d pgrp e f tpgid rest < /proc/$$/stat
echo "SHELL-PG=$pgrp TPG=$tpgid"
[[ -o monitor ]] && echo "MONITOR=on"
RC
chmod 644 "$WORK/rc.bash"
# shellcheck disable=SC2016 # typed at the shell in the container, expanded there
printf '%s\n' 'sleep 30 &' 'read -r a b c d jpg rest < /proc/$!/stat; echo "JOB-PG=$jpg SHELL-PG=$pgrp"' \
	'jobs' 'kill %1' 'echo "TYPED=$((6 * 7))"' 'exit 7' |
	timeout 120 script -qec "$DOCKER run --rm -it --network none --cap-drop ALL \
		--cap-add SETUID --cap-add SETGID --cap-add SETPCAP -v $WORK/rc.bash:/rc.bash:ro \
		-e CLI_SANDBOX_EGRESS_PROFILE=interactive -e SKIP_EGRESS_FIREWALL=true -e TERM=dumb \
		$IMAGE bash --rcfile /rc.bash -i" /dev/null >"$WORK/tty.raw" 2>&1
echo $? >"$WORK/tty.rc"
tr -d '\r' <"$WORK/tty.raw" >"$WORK/tty.txt"
note <"$WORK/tty.txt"
ok "-it: the shell's group is the terminal's foreground group" grep -q '^SHELL-PG=\([0-9]*\) TPG=\1$' "$WORK/tty.txt"
ok "-it: job control (monitor) is on, no 'no job control' complaint" \
	sh -c "grep -q '^MONITOR=on' '$WORK/tty.txt' && ! grep -qi 'no job control' '$WORK/tty.txt'"
ok "-it: a background job gets its own group and jobs lists it" \
	sh -c "grep -q 'Running.*sleep 30' '$WORK/tty.txt' && grep '^JOB-PG=' '$WORK/tty.txt' | awk '{ split(\$1, a, \"=\"); split(\$2, b, \"=\"); exit !(a[2] != b[2]) }'"
ok "-it: the shell ran what was typed and its status (7) came through" \
	sh -c "grep -q '^TYPED=42' '$WORK/tty.txt' && [ \"\$(cat '$WORK/tty.rc')\" = 7 ]"

# --- 6. interactive: Docker's embedded DNS works, and only through its front door ---------
# The peer answers every name with 198.51.100.99: a lookup of foo.test that gets
# that answer went 127.0.0.11 -> the resolver -> its upstream query out through
# our output chain -> the peer.  Container names are the resolver's own.
IPROBE="lookup:foo.test lookup:$TAG-gw dns-udp:127.0.0.11:53 dns-tcp:127.0.0.11:53
dns-udp:$PEER:53 dns-tcp:$PEER:53 dns-udp:127.0.0.11:real dns-tcp:127.0.0.11:real tcp:$PEER:8080"
# shellcheck disable=SC2086
sbx interactive $MANAGED -e CLI_SANDBOX_EGRESS_PROFILE=interactive -e TASK_AGENT_MODEL_BASE_URL=$URL \
	"$IMAGE" sh -c 'grep "^nameserver" /etc/resolv.conf; exec node /probe.js "$@"' probe $IPROBE
fourth() { awk -v c="$2" '$1 == c { print $2 " " $4 }' "$1"; }
ok "interactive: the init started the probe (exit $(rc_of interactive))" [ "$(rc_of interactive)" = 0 ]
ok "interactive: resolv.conf names Docker's 127.0.0.11, and only it" \
	[ "$(grep '^nameserver' "$WORK/interactive.out")" = "nameserver 127.0.0.11" ]
ok "interactive: foo.test resolves through 127.0.0.11 and its upstream (the peer's 198.51.100.99)" \
	[ "$(fourth "$WORK/interactive.out" lookup:foo.test)" = "ok 198.51.100.99" ]
ok "interactive: a container name resolves ($TAG-gw is $GW)" \
	[ "$(fourth "$WORK/interactive.out" "lookup:$TAG-gw")" = "ok $GW" ]
for c in dns-udp:127.0.0.11:53 dns-tcp:127.0.0.11:53; do
	ok "interactive: $c answers" [ "$(result "$WORK/interactive.out" "$c")" = ok ]
done
for c in dns-udp:$PEER:53 dns-tcp:$PEER:53 dns-udp:127.0.0.11:real dns-tcp:127.0.0.11:real tcp:$PEER:8080; do
	r=$(result "$WORK/interactive.out" "$c")
	ok "interactive: $c (not the resolver's own upstream query) is refused at once ($r)" [ "$r" = "$(refusal "$c")" ]
done

# --- 7. the Docker socket (interactive) --------------------------------------------------
SOCK=${DOCKER_HOST#unix://}
SOCKGID=$(stat -c %g "$SOCK")
echo "# the test daemon's socket: $(stat -c '%U:%G %a' "$SOCK")"
if D run --rm --network none --entrypoint sh "$IMAGE" -c 'command -v docker' >/dev/null 2>&1; then
	CLIMOUNT=""
	echo "# the image's own Docker CLI"
else
	# Until the image ships a Docker CLI, the host's (Debian's, dynamically
	# linked against libc only) is mounted in; this tests the socket and the
	# group, not the image's CLI.
	CLIMOUNT="-v /usr/bin/docker:/usr/local/bin/docker:ro"
	echo "# the image has no Docker CLI: the host's /usr/bin/docker is mounted for this check"
fi
if [ "$SOCKGID" = 0 ]; then
	skip "the test daemon's socket belongs to group 0, which the sandbox drops (no docker group here)"
else
	# shellcheck disable=SC2086
	sbx socket $MANAGED -e CLI_SANDBOX_EGRESS_PROFILE=interactive $CLIMOUNT \
		-v "$SOCK:/var/run/docker.sock" --group-add "$SOCKGID" "$IMAGE" \
		sh -c 'id -G; docker ps --format "{{.Names}}"'
	ok "docker socket: the sandbox user keeps the socket's group $SOCKGID" \
		sh -c "head -1 '$WORK/socket.out' | tr ' ' '\n' | grep -qx '$SOCKGID'"
	ok "docker socket: the Docker CLI in the sandbox lists the test daemon's containers" \
		sh -c "[ '$(rc_of socket)' = 0 ] && grep -qx '$TAG-gw' '$WORK/socket.out'"
fi

# --- 8. the host script with --engine docker ---------------------------------------------
# Debian's client first in PATH (another, newer client may sit in /usr/local/bin).
mkdir -p "$WORK/bin" "$WORK/home"
ln -s "$DOCKER" "$WORK/bin/docker"
: >"$WORK/log/gateway.log"
# The key in the environment, as a person exports it: the script passes it by name.
env PATH="$WORK/bin:$PATH" HOME="$WORK/home" CLI_SANDBOX_HOME="$WORK/home/.config/cli-sandbox" \
	ANTHROPIC_API_KEY=sk-ant-test-not-a-key \
	CLI_SANDBOX_IMAGE="$IMAGE" CLI_SANDBOX_KEYS_IN=true CLI_SANDBOX_ENGINE_ARGS="--network $NET --dns $PEER" \
	timeout 240 sh "$ROOT/host/cli-sandbox" --engine docker --managed "$URL" --workspace "$WORK/ws" \
	claude -- -p "say pong" </dev/null >"$WORK/host.out" 2>"$WORK/host.err"
echo $? >"$WORK/host.rc"
cp "$WORK/log/gateway.log" "$WORK/host.gw"
note <"$WORK/host.out"
tail -5 "$WORK/host.err" | note
ok "host script --engine docker: claude exits 0 (got $(rc_of host))" [ "$(rc_of host)" = 0 ]
ok "host script --engine docker: claude prints the gateway's reply" grep -qF "$REPLY" "$WORK/host.out"
ok "host script --engine docker: the gateway saw POST /v1/messages" grep -q '^POST /v1/messages' "$WORK/host.gw"

t_done
