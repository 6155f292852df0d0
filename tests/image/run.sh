#!/bin/sh
# Image tests, with podman, as root:
#   1. the local Debian trixie base image (make-base-image.sh) and the cli-sandbox image
#      (Dockerfile; Node.js from Debian via INSTALL_NODEJS_FROM_APT=1);
#   2. what the image holds: entrypoint, labels, the node user, /workspace, a static
#      init, no setuid/setgid files, none of sudo/iptables/ipset/nft/dig or a Docker
#      daemon, the pinned CLIs; each toolset tool does a small job as node (toolset.sh),
#      and the Docker CLI talks to a socket passed with --group-add;
#   3. --check and --dry-run without any privilege;
#   4. the managed profile end to end: the init programs the firewall in a test network
#      namespace, drops privileges, and each real CLI (claude, codex, pi) gets the mock
#      gateway's reply from 192.0.2.1:8080 in a second namespace;
#   5. the capability contract under two starting sets, read from /proc in the container;
#   6. the firewall contract: the gateway tuple and nothing else (other hosts and ports,
#      DNS, IPv6, cloud metadata), against a baseline where everything answers;
#   7. invalid configurations stop the container with 78, a missing NET_ADMIN with 71,
#      and the command never starts;
#   8. the host script (host/cli-sandbox) runs the image with real podman, and its
#      doctor --json reports with and without the image;
#   9. the per-CLI images REPOSITORY:claude, :codex and :pi (image/build.sh --cli): one
#      CLI each, its CMD, the base and toolset layers shared with the all-in-one, each
#      CLI through the managed firewall, the host script picking a CLI's own image.
#  10. tests/image/tui.sh: each CLI's TUI in tmux through the host script, on a fresh home.
#  11. deploy/kubernetes/'s Job pod under podman kube play (tests/image/kube.sh).
#  12. deploy/kubernetes/interactive/'s pinned pod under podman kube play (tests/image/kube_pinned.sh).
#
# usage: sh tests/image/run.sh
# environment:
#   CLI_SANDBOX_TEST_IMAGE  image to build and test (default localhost/cli-sandbox:test);
#                           the per-CLI images are REPOSITORY:claude, :codex and :pi
#   CLI_SANDBOX_BASE_IMAGE  local Debian base (default localhost/cli-sandbox-base:trixie)
#   SKIP_IMAGE_BUILD=1      test CLI_SANDBOX_TEST_IMAGE as it is
#   CLI_SANDBOX_EXTRA_CA    PEM bundle npm trusts during the build (default: the host's
#                           /etc/ssl/certs/ca-certificates.crt; empty: none)
#   PODMAN_RUN_ARGS         extra `podman run`/`podman build` options (default: runc and
#                           ulimits that work where crun or the default limits do not)
# Needs: podman, runc, debootstrap (make-base-image.sh installs it), iproute2, python3.
# Traffic stays inside the network namespaces of tests/netns/topology.sh (192.0.2.0/24,
# 198.51.100.0/24, 2001:db8:1::/64), made and removed here.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$ROOT/tests/netns/topology.sh"
IMAGE=${CLI_SANDBOX_TEST_IMAGE:-localhost/cli-sandbox:test}
BASE=${CLI_SANDBOX_BASE_IMAGE:-localhost/cli-sandbox-base:trixie}
RUNARGS=${PODMAN_RUN_ARGS:---runtime runc --ulimit nofile=1024:1024 --ulimit nproc=1000:1000}
EXTRA_CA=${CLI_SANDBOX_EXTRA_CA-/etc/ssl/certs/ca-certificates.crt}
REPLY="pong from the image test gateway"

WORK=$(mktemp -d /tmp/cli-sandbox-image-test.XXXXXX)
chmod 755 "$WORK"

cleanup() {
	topo_down
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# shellcheck disable=SC2034 # read by tests/lib/tap.sh's ok
T_QUIET=1  # the checked commands' output is silenced
note() { sed 's/^/#   /'; }
bail() { echo "Bail out! $*"; exit 1; }

# podman run with this machine's options; $RUNARGS is split on purpose.
prun() {
	# shellcheck disable=SC2086
	timeout 240 podman run --rm $RUNARGS "$@" </dev/null
}

[ "$(id -u)" -eq 0 ] || bail "run as root (podman build and network namespaces)"
for c in podman ip python3 timeout; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing"
done

# --- 1. build ---------------------------------------------------------------------
if [ "${SKIP_IMAGE_BUILD:-0}" != 1 ]; then
	# The README's main job, as a user runs it; the providers' range files are
	# not fetched here (no route to them from the test machines).
	t0=$(date +%s)
	# All six images (they share every layer up to the CLIs); kept in podman.
	if ! CLI_SANDBOX_BASE_IMAGE="$BASE" CLI_SANDBOX_EXTRA_CA="$EXTRA_CA" PODMAN_ARGS="$RUNARGS" \
		BUILD_ARGS="--build-arg FETCH_PROVIDER_RANGES=0" CLI_SANDBOX_ENGINE=podman \
		timeout 3600 sh "$ROOT/image/build.sh" --cli all,claude,codex,pi,gemini,opencode "$IMAGE" >"$WORK/build.log" 2>&1; then
		tail -30 "$WORK/build.log" | note
		bail "image/build.sh failed"
	fi
	echo "# image $IMAGE built by image/build.sh in $(($(date +%s) - t0))s"
fi
podman image exists "$IMAGE" || bail "no image $IMAGE"
echo "# image size: $(podman image inspect --format '{{.Size}}' "$IMAGE") bytes"

# --- 2. contents --------------------------------------------------------------------
fmt() { podman image inspect --format "$1" "$IMAGE"; }
label() { podman image inspect --format "{{index .Config.Labels \"$1\"}}" "$IMAGE"; }
in_image() {  # in_image SHELL-SCRIPT: runs as root in the image, no network, init bypassed
	prun --network none --entrypoint /bin/sh "$IMAGE" -c "$1"
}
ok "ENTRYPOINT is the init" [ "$(fmt '{{json .Config.Entrypoint}}')" = '["/usr/local/sbin/cli-sandbox-init"]' ]
ok "CMD is claude" [ "$(fmt '{{json .Config.Cmd}}')" = '["claude"]' ]
ok "WORKDIR is /workspace" [ "$(fmt '{{.Config.WorkingDir}}')" = /workspace ]
ok "the image does not switch USER (the init starts as root)" [ -z "$(fmt '{{.Config.User}}')" ]
for l in title description licenses version; do
	ok "label org.opencontainers.image.$l is set" [ -n "$(label "org.opencontainers.image.$l")" ]
done
ok "label org.opencontainers.image.source exists" \
	sh -c "podman image inspect --format '{{json .Config.Labels}}' '$IMAGE' | grep -q '\"org.opencontainers.image.source\"'"

in_image 'id -u node; id -g node; getent passwd node | cut -d: -f6; stat -c %u:%g /workspace /home/node' \
	>"$WORK/user" 2>&1
ok "user node is uid 1000 gid 1000, home /home/node; /workspace and the home owned by node" \
	[ "$(tr '\n' ' ' <"$WORK/user")" = "1000 1000 /home/node 1000:1000 1000:1000 " ]
in_image 'find / -xdev -type f -perm /6000' >"$WORK/suid" 2>&1
ok "no setuid or setgid files" [ ! -s "$WORK/suid" ]
note <"$WORK/suid"
# shellcheck disable=SC2016 # expanded by the shell in the image
in_image 'for t in sudo iptables ip6tables ipset nft dig nslookup dockerd containerd; do command -v "$t"; done' >"$WORK/tools" 2>&1
ok "no sudo, iptables, ipset, nft, dig, nslookup, dockerd or containerd" [ ! -s "$WORK/tools" ]
note <"$WORK/tools"
in_image 'test -s /usr/local/share/cli-sandbox/pi-base-url.js && test -d /etc/cli-sandbox/profiles' >/dev/null 2>&1
ok "pi's base-URL extension and the profile directory are installed" [ $? -eq 0 ]

ctr=$(podman create --network none "$IMAGE" 2>/dev/null) &&
	podman cp "$ctr:/usr/local/sbin/cli-sandbox-init" "$WORK/init" >/dev/null 2>&1
[ -n "${ctr:-}" ] && podman rm "$ctr" >/dev/null 2>&1
ldd "$WORK/init" >"$WORK/ldd" 2>&1
# static-pie: ldd says "statically linked" (a plain static binary: "not a dynamic executable")
ok "the init is a static executable" grep -Eq 'not a dynamic executable|statically linked' "$WORK/ldd"
ok "the init is static-pie with full RELRO" sh -c "readelf -dW '$WORK/init' | grep -q 'FLAGS_1.*NOW.*PIE' && readelf -lW '$WORK/init' | grep -q GNU_RELRO"

in_image 'export HOME=/tmp; claude --version; codex --version; pi --version 2>&1' >"$WORK/versions" 2>&1
note <"$WORK/versions"
ok "claude is the pinned version" grep -qx "$(label io.cli-sandbox.claude-code.version) (Claude Code)" "$WORK/versions"
ok "codex is the pinned version" grep -qx "codex-cli $(label io.cli-sandbox.codex.version)" "$WORK/versions"
ok "pi is the pinned version" grep -qx "$(label io.cli-sandbox.pi.version)" "$WORK/versions"

# --- 2b. the toolset, as node, through the init ---------------------------------------
# (interactive with the firewall skipped and no network: only the tools are under test)
as_node() {  # as_node ENGINE-OPTIONS... -- COMMAND...: started by the init, run as node
	opts=''
	while [ "$1" != -- ]; do opts="$opts $1"; shift; done
	shift
	# shellcheck disable=SC2086 # $opts holds several options
	prun --network none --cap-drop ALL --cap-add SETUID,SETGID,SETPCAP --security-opt no-new-privileges \
		-e CLI_SANDBOX_EGRESS_PROFILE=interactive -e SKIP_EGRESS_FIREWALL=true $opts "$IMAGE" "$@"
}
cp "$HERE/toolset.sh" "$WORK/toolset.sh" && chmod 644 "$WORK/toolset.sh"
as_node -v "$WORK/toolset.sh:/toolset.sh:ro" -- sh /toolset.sh >"$WORK/toolset.out" 2>"$WORK/toolset.err"
grep -v '^ok ' "$WORK/toolset.out" | note
tail -3 "$WORK/toolset.err" | note
for tool in git ssh rg fd fdfind gh jq make patch diff less ps pstree killall tree zip unzip file \
	nano vi python3 venv+pip pip3 gcc g++ curl bwrap docker node no-dockerd; do
	ok "toolset: $tool does its job as node" grep -qxF "ok $tool" "$WORK/toolset.out"
done

# The documented --docker-socket workflow: an engine socket of another group, mounted at
# /var/run/docker.sock and that group added; `docker ps` as node reaches it. A stand-in
# for the engine answers on the socket (tests/dockerd.sh's tests use a real one).
mkdir -p "$WORK/engine" && chmod 755 "$WORK/engine"
python3 "$HERE/fake_docker_api.py" --socket "$WORK/engine/docker.sock" --log "$WORK/engine.log" \
	--group 4242 --max-seconds 300 >/dev/null 2>&1 &
engine_pid=$!
i=0
while [ ! -S "$WORK/engine/docker.sock" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
as_node -v "$WORK/engine/docker.sock:/var/run/docker.sock" --group-add 4242 -- docker ps \
	>"$WORK/docker-ps.out" 2>&1
rc=$?
note <"$WORK/docker-ps.out"
ok "docker ps as node, socket group added: exit 0 (got $rc)" [ $rc -eq 0 ]
ok "docker ps lists the engine's container" grep -q 'fake-engine-container' "$WORK/docker-ps.out"
ok "docker ps asked the engine through the socket" grep -q '^GET /v[0-9.]*/containers/json' "$WORK/engine.log"
as_node -v "$WORK/engine/docker.sock:/var/run/docker.sock" -- docker ps >"$WORK/docker-ps-nogroup.out" 2>&1
rc=$?
ok "docker ps without the socket's group: refused (got $rc)" \
	sh -c "[ $rc -ne 0 ] && grep -qi 'permission denied' '$WORK/docker-ps-nogroup.out'"
kill "$engine_pid" 2>/dev/null
wait "$engine_pid" 2>/dev/null

# --- 3. no privileges needed for --check and --dry-run -------------------------------
URL=http://192.0.2.1:8080
prun --network none --cap-drop ALL -e TASK_AGENT_MODEL_BASE_URL=$URL "$IMAGE" --check >"$WORK/check" 2>&1
rc=$?
note <"$WORK/check"
ok "--check accepts a valid managed configuration without privileges (exit $rc)" [ $rc -eq 0 ]
prun --network none --cap-drop ALL -e TASK_AGENT_MODEL_BASE_URL=http://127.0.0.1:8080 "$IMAGE" --check \
	>"$WORK/check-bad" 2>&1
rc=$?
ok "--check refuses a loopback model URL with 78 (exit $rc)" [ $rc -eq 78 ]
prun --network none --cap-drop ALL -e TASK_AGENT_MODEL_BASE_URL=$URL "$IMAGE" --dry-run >"$WORK/dry" 2>&1
rc=$?
ok "--dry-run works without privileges (exit $rc)" [ $rc -eq 0 ]
ok "--dry-run prints the ruleset" grep -q 'table inet cli_sandbox' "$WORK/dry"

# --- 4. managed profile end to end -----------------------------------------------------
topo_up || bail "cannot build the test network namespaces"
topo_spawn "$NS_GW" python3 "$ROOT/tests/gateway/mock_gateway.py" --listen 192.0.2.1 --port 8080 \
	--reply "$REPLY" --log "$WORK/gateway.log" --max-seconds 900 >"$WORK/gw.out" 2>"$WORK/gw.err"
topo_spawn "$NS_GW" python3 "$ROOT/tests/netns/netservers.py" --max-seconds 900 \
	--tcp 192.0.2.1:8081 --tcp "[2001:db8:1::1]:8080" --tcp 169.254.169.254:80 --dns 192.0.2.1:53
topo_spawn "$NS_OTHER" python3 "$ROOT/tests/netns/netservers.py" --max-seconds 900 \
	--tcp 198.51.100.2:8080 --dns 198.51.100.2:53
topo_wait_tcp "$NS_GW" 192.0.2.1 8080 && topo_wait_tcp "$NS_GW" 192.0.2.1 8081 &&
	topo_wait_tcp "$NS_OTHER" 198.51.100.2 8080 || bail "the test servers did not start"
cp "$HERE/probe.js" "$WORK/probe.js"
chmod 644 "$WORK/probe.js"

# sandboxed CAPS NAME COMMAND...: the image with the managed profile in $NS_SBX,
# started with the given capability options.
sandboxed() {
	caps=$1
	name=$2
	shift 2
	: >"$WORK/gateway.log"
	# shellcheck disable=SC2086 # $caps holds several options
	prun --network "ns:/run/netns/$NS_SBX" $caps -v "$WORK/probe.js:/probe.js:ro" \
		-e TASK_AGENT_MODEL_BASE_URL=$URL -e ANTHROPIC_API_KEY=sk-ant-test-not-a-key \
		-e OPENAI_API_KEY=sk-test-not-a-key "$IMAGE" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err"
	echo $? >"$WORK/$name.rc"
	cp "$WORK/gateway.log" "$WORK/$name.gw"
	echo "# $name: exit $(cat "$WORK/$name.rc"); stdout, stderr (last lines), gateway log:"
	note <"$WORK/$name.out"
	tail -5 "$WORK/$name.err" | note
	note <"$WORK/$name.gw"
}
MINIMAL="--cap-drop ALL --cap-add NET_ADMIN,SETUID,SETGID"
# Docker's default capability set, spelled out so the test does not depend on
# the engine's own default, plus NET_ADMIN.
DOCKER_DEFAULT="--cap-drop ALL --cap-add CHOWN,DAC_OVERRIDE,FOWNER,FSETID,KILL,SETGID,SETUID,SETPCAP,NET_BIND_SERVICE,NET_RAW,SYS_CHROOT,MKNOD,AUDIT_WRITE,SETFCAP,NET_ADMIN"
managed() {  # managed NAME COMMAND...: as the host script starts it
	sandboxed "--cap-drop ALL --cap-add NET_ADMIN,SETUID,SETGID,SETPCAP --security-opt no-new-privileges" "$@"
}

managed claude claude -p "say pong"
ok "claude exits 0 in the managed profile" [ "$(cat "$WORK/claude.rc")" = 0 ]
ok "claude prints the gateway's reply" grep -qF "$REPLY" "$WORK/claude.out"
ok "claude called POST /v1/messages" grep -q '^POST /v1/messages' "$WORK/claude.gw"
ok "the init reported the managed firewall up" grep -q 'firewall up: profile=managed' "$WORK/claude.err"

managed codex codex exec --skip-git-repo-check "say pong"
ok "codex exits 0 in the managed profile" [ "$(cat "$WORK/codex.rc")" = 0 ]
ok "codex prints the gateway's reply" grep -qF "$REPLY" "$WORK/codex.out"
ok "codex called the Responses API at /responses" grep -q ' /responses' "$WORK/codex.gw"

managed pi pi -p "say pong"
ok "pi exits 0 in the managed profile" [ "$(cat "$WORK/pi.rc")" = 0 ]
ok "pi prints the gateway's reply" grep -qF "$REPLY" "$WORK/pi.out"
ok "pi called POST /v1/messages" grep -q '^POST /v1/messages' "$WORK/pi.gw"

# --- 5. capability contract ------------------------------------------------------------
# The command reads its own status and every process's Uid in the PID namespace.
status_cmd='grep -E "^(Uid|Gid|Groups|CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs):" /proc/self/status;
for f in /proc/[0-9]*/status; do echo "proc $(sed -n "s/^Pid:[[:space:]]*//p" "$f") $(sed -n "s/^Uid:[[:space:]]*//p" "$f")"; done'
caps_ok() {  # caps_ok FILE BOUNDING: the dropped state, with the bounding set expected
	grep -Eq '^Uid:[[:space:]]+1000[[:space:]]+1000[[:space:]]+1000[[:space:]]+1000$' "$1" &&
		grep -Eq '^Gid:[[:space:]]+1000[[:space:]]+1000[[:space:]]+1000[[:space:]]+1000$' "$1" &&
		[ "$(grep -Ec '^Cap(Inh|Prm|Eff|Amb):[[:space:]]+0+$' "$1")" -eq 4 ] &&
		grep -Eq "^CapBnd:[[:space:]]+$2\$" "$1" &&
		grep -Eq '^NoNewPrivs:[[:space:]]+1$' "$1" &&
		! grep -E '^proc ' "$1" | grep -Ev '^proc [0-9]+ 1000[[:space:]]+1000[[:space:]]+1000[[:space:]]+1000$' | grep -q .
}
sandboxed "$MINIMAL" caps-minimal sh -c "$status_cmd"
ok "caps (NET_ADMIN, SETUID, SETGID): started (exit $(cat "$WORK/caps-minimal.rc"))" [ "$(cat "$WORK/caps-minimal.rc")" = 0 ]
ok "caps (NET_ADMIN, SETUID, SETGID): uid/gid 1000, CapInh/Prm/Eff/Amb 0, NoNewPrivs 1, bounding set only those three, no process as root" \
	caps_ok "$WORK/caps-minimal.out" 00000000000010c0
ok "caps (NET_ADMIN, SETUID, SETGID): the init says the bounding set stays" grep -q 'CAP_SETPCAP was not granted' "$WORK/caps-minimal.err"
sandboxed "$DOCKER_DEFAULT" caps-default sh -c "$status_cmd"
ok "caps (Docker's default set + NET_ADMIN): started (exit $(cat "$WORK/caps-default.rc"))" [ "$(cat "$WORK/caps-default.rc")" = 0 ]
ok "caps (Docker's default set + NET_ADMIN): uid/gid 1000, every set 0 (bounding too), NoNewPrivs 1, no process as root" \
	caps_ok "$WORK/caps-default.out" 0000000000000000
in_image 'for f in /usr/bin/sudo /usr/sbin/sudo /bin/sudo /sbin/sudo; do test ! -e "$f" || exit 1; done; echo absent' >"$WORK/sudo" 2>&1
ok "sudo is absent from the image" grep -qx absent "$WORK/sudo"

# --- 6. firewall contract ---------------------------------------------------------------
BLOCKED="tcp:192.0.2.1:8081 tcp:198.51.100.2:8080 dns-udp:192.0.2.1:53 dns-tcp:192.0.2.1:53
dns-udp:198.51.100.2:53 dns-tcp:198.51.100.2:53 tcp:[2001:db8:1::1]:8080 tcp:169.254.169.254:80"
result() { awk -v c="$2" '$1 == c { print $2 }' "$1"; }
# Baseline: the same probe in the same namespace with no firewall (init bypassed).
ip netns exec "$NS_SBX" nft delete table inet cli_sandbox 2>/dev/null
# shellcheck disable=SC2086
prun --network "ns:/run/netns/$NS_SBX" --cap-drop ALL -v "$WORK/probe.js:/probe.js:ro" \
	--entrypoint node "$IMAGE" /probe.js $BLOCKED >"$WORK/baseline.out" 2>&1
for c in $BLOCKED; do
	ok "baseline without firewall: $c answers" [ "$(result "$WORK/baseline.out" "$c")" = ok ]
done
# shellcheck disable=SC2086
managed egress node /probe.js connect:192.0.2.1:8080 $BLOCKED
ok "firewall: the gateway tuple connects" [ "$(result "$WORK/egress.out" connect:192.0.2.1:8080)" = ok ]
for c in $BLOCKED; do
	r=$(result "$WORK/egress.out" "$c")
	ok "firewall: $c is refused, not silently dropped ($r)" sh -c "[ -n '$r' ] && [ '$r' != ok ] && [ '$r' != timeout ]"
done

# The block log: the command itself reads what was refused (the agent's view), and
# the container log has the same lines; allowed traffic is not in it.
managed blocklog sh -c 'node /probe.js connect:192.0.2.1:8080 tcp:198.51.100.2:8080 dns-udp:192.0.2.1:53 \
	tcp:[2001:db8:1::1]:8080 > /dev/null; i=0; while [ $i -lt 300 ] && ! grep -q 2001:db8 /run/cli-sandbox/blocked.log; \
	do sleep 0.1; i=$((i + 1)); done; cat /run/cli-sandbox/blocked.log; echo forged >> /run/cli-sandbox/blocked.log && echo WRITABLE'
for l in "tcp to 198.51.100.2 port 8080" "udp to 192.0.2.1 port 53" "tcp to 2001:db8:1::1 port 8080"; do
	ok "block log: the command reads 'refused $l uid 1000'" grep -q "Z refused $l uid 1000" "$WORK/blocklog.out"
	ok "block log: the container log has 'refused $l'" grep -q "blocked: .*Z refused $l uid 1000" "$WORK/blocklog.err"
done
ok "block log: the allowed gateway tuple is not in it" sh -c "! grep -q 'to 192.0.2.1 port 8080' '$WORK/blocklog.out'"
ok "block log: the command cannot write it" sh -c "! grep -q WRITABLE '$WORK/blocklog.out'"

# --- 7. invalid configuration and missing privileges ----------------------------------------
mkdir -p "$WORK/mark"
chmod 777 "$WORK/mark"
refused() {  # refused NAME CAPS ENV...: the start must fail before the command runs
	name=$1
	caps=$2
	shift 2
	rm -f "$WORK/mark/ran"
	# shellcheck disable=SC2086
	prun --network "ns:/run/netns/$NS_SBX" $caps -v "$WORK/mark:/mark" "$@" "$IMAGE" \
		touch /mark/ran >"$WORK/$name.out" 2>"$WORK/$name.err"
	echo $? >"$WORK/$name.rc"
	note <"$WORK/$name.err"
}
refused badurl "$MINIMAL" -e TASK_AGENT_MODEL_BASE_URL=http://0x7f.0.0.1:8080
ok "a bad URL stops the container with 78 (got $(cat "$WORK/badurl.rc"))" [ "$(cat "$WORK/badurl.rc")" = 78 ]
ok "a bad URL: the command never started" [ ! -e "$WORK/mark/ran" ]
refused skipfw "$MINIMAL" -e TASK_AGENT_MODEL_BASE_URL=$URL -e SKIP_EGRESS_FIREWALL=true
ok "SKIP_EGRESS_FIREWALL=true in managed mode stops the container with 78 (got $(cat "$WORK/skipfw.rc"))" [ "$(cat "$WORK/skipfw.rc")" = 78 ]
ok "SKIP_EGRESS_FIREWALL=true: the command never started" [ ! -e "$WORK/mark/ran" ]
refused nonetadmin "--cap-drop ALL --cap-add SETUID,SETGID,SETPCAP" -e TASK_AGENT_MODEL_BASE_URL=$URL
ok "without NET_ADMIN the container stops with 71 (got $(cat "$WORK/nonetadmin.rc"))" [ "$(cat "$WORK/nonetadmin.rc")" = 71 ]
ok "without NET_ADMIN the error names --cap-add=NET_ADMIN" grep -q -- '--cap-add=NET_ADMIN' "$WORK/nonetadmin.err"
ok "without NET_ADMIN: the command never started" [ ! -e "$WORK/mark/ran" ]
refused control "$MINIMAL" -e TASK_AGENT_MODEL_BASE_URL=$URL
ok "control: a valid start does run the command" [ -e "$WORK/mark/ran" ]

# --- 7b. docker run -it: the shell gets the terminal and job control ----------------------
# The init is PID 1 of the container and gives the command the terminal's
# foreground group (no firewall needed here: interactive, skipped, no network).
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
	timeout 120 script -qec "podman run --rm -it $RUNARGS --network none --cap-drop ALL \
		--cap-add SETUID,SETGID,SETPCAP -v $WORK/rc.bash:/rc.bash:ro \
		-e CLI_SANDBOX_EGRESS_PROFILE=interactive -e SKIP_EGRESS_FIREWALL=true -e TERM=dumb \
		$IMAGE bash --rcfile /rc.bash -i" /dev/null >"$WORK/tty.out" 2>&1
echo $? >"$WORK/tty.rc"
tr -d '\r' <"$WORK/tty.out" >"$WORK/tty.txt"
note <"$WORK/tty.txt"
ok "-it: the shell's group is the terminal's foreground group" grep -q '^SHELL-PG=\([0-9]*\) TPG=\1$' "$WORK/tty.txt"
ok "-it: job control (monitor) is on, no 'no job control' complaint" \
	sh -c "grep -q '^MONITOR=on' '$WORK/tty.txt' && ! grep -qi 'no job control' '$WORK/tty.txt'"
ok "-it: a background job gets its own group and jobs lists it" \
	sh -c "grep -q 'Running.*sleep 30' '$WORK/tty.txt' && grep '^JOB-PG=' '$WORK/tty.txt' | awk '{ split(\$1, a, \"=\"); split(\$2, b, \"=\"); exit !(a[2] != b[2]) }'"
ok "-it: the shell ran what was typed and its status (7) came through" \
	sh -c "grep -q '^TYPED=42' '$WORK/tty.txt' && [ \"\$(cat '$WORK/tty.rc')\" = 7 ]"

# --- 8. the host script with real podman ---------------------------------------------------
# HOME and the script's own state live in $WORK; the container joins the sandbox
# namespace; the API key is in the environment, as a person exports it (the script passes it
# by name). Run as root, the sandbox user is uid 1000: the workspace is made writable for it.
mkdir -p "$WORK/home" "$WORK/ws"
chown 1000:1000 "$WORK/ws"
host_script() {
	env HOME="$WORK/home" CLI_SANDBOX_HOME="$WORK/home/.config/cli-sandbox" \
		CLI_SANDBOX_ENGINE=podman CLI_SANDBOX_IMAGE="$IMAGE" ANTHROPIC_API_KEY=sk-ant-test-not-a-key OPENAI_API_KEY=sk-test-not-a-key \
		CLI_SANDBOX_ENGINE_GLOBAL_ARGS="--runtime runc" \
		CLI_SANDBOX_KEYS_IN=true CLI_SANDBOX_ENGINE_ARGS="--ulimit nofile=1024:1024 --ulimit nproc=1000:1000 --network ns:/run/netns/$NS_SBX" \
		timeout 240 sh "$ROOT/host/cli-sandbox" "$@" </dev/null
}
host_script endpoints add gw "$URL" --no-probe >/dev/null && host_script endpoints use gw >/dev/null
: >"$WORK/gateway.log"
host_script --workspace "$WORK/ws" claude -- -p "say pong" >"$WORK/host.out" 2>"$WORK/host.err"
rc=$?
note <"$WORK/host.out"
tail -5 "$WORK/host.err" | note
ok "host script: claude through the selected managed endpoint exits 0 (got $rc)" [ $rc -eq 0 ]
ok "host script: claude prints the gateway's reply" grep -qF "$REPLY" "$WORK/host.out"
# doctor probes the endpoint from where it runs: run it inside the sandbox
# namespace (where the firewall still allows exactly the gateway tuple), never
# from the root namespace.
doctor() {
	ip netns exec "$NS_SBX" env HOME="$WORK/home" CLI_SANDBOX_HOME="$WORK/home/.config/cli-sandbox" \
		CLI_SANDBOX_ENGINE=podman CLI_SANDBOX_IMAGE="$1" ANTHROPIC_API_KEY=sk-ant-test-not-a-key \
		timeout 120 sh "$ROOT/host/cli-sandbox" --workspace "$WORK/ws" doctor --json </dev/null
}
doctor "$IMAGE" >"$WORK/doctor-ok.json" 2>"$WORK/doctor-ok.err"
rc=$?
note <"$WORK/doctor-ok.json"
ok "doctor --json with the image: exit 0 (got $rc)" [ $rc -eq 0 ]
ok "doctor --json with the image: ok true, image check ok" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
img = [c for c in d["checks"] if c["name"] == "image"]
sys.exit(0 if d["ok"] is True and img and img[0]["ok"] is True else 1)' "$WORK/doctor-ok.json"
doctor localhost/cli-sandbox:no-such-image >"$WORK/doctor-no.json" 2>"$WORK/doctor-no.err"
rc=$?
ok "doctor --json without the image: non-zero exit (got $rc)" [ $rc -ne 0 ]
ok "doctor --json without the image: ok false, image check failed" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
img = [c for c in d["checks"] if c["name"] == "image"]
sys.exit(0 if d["ok"] is False and img and img[0]["ok"] is False else 1)' "$WORK/doctor-no.json"

# --- 9. the per-CLI images -------------------------------------------------------------
case ${IMAGE##*/} in *:*) REPO=${IMAGE%:*} ;; *) REPO=$IMAGE ;; esac
layers() { podman image inspect --format '{{range .RootFS.Layers}}{{println .}}{{end}}' "$1"; }
base_layers=$(layers "$BASE" | grep -c .)
layers "$IMAGE" >"$WORK/layers-all"
for cli in claude codex pi; do
	img=$REPO:$cli
	if ! podman image exists "$img"; then
		if [ "${SKIP_IMAGE_BUILD:-0}" = 1 ]; then echo "# SKIP $img: not built (SKIP_IMAGE_BUILD=1)"; continue; fi
		ok "$img was built" false
		continue
	fi
	echo "# $img size: $(podman image inspect --format '{{.Size}}' "$img") bytes"
	ok "$img: CMD is $cli" [ "$(podman image inspect --format '{{json .Config.Cmd}}' "$img")" = "[\"$cli\"]" ]
	ok "$img: ENTRYPOINT is the init" \
		[ "$(podman image inspect --format '{{json .Config.Entrypoint}}' "$img")" = '["/usr/local/sbin/cli-sandbox-init"]' ]
	ok "$img: label io.cli-sandbox.cli is $cli" \
		[ "$(podman image inspect --format '{{index .Config.Labels "io.cli-sandbox.cli"}}' "$img")" = "$cli" ]
	layers "$img" >"$WORK/layers-$cli"
	shared=$((base_layers + 1))
	[ "$cli" != claude ] || shared=$((base_layers + 2))
	ok "$img shares its first $shared layers (base, toolset$([ "$cli" = claude ] && echo ', claude') with $IMAGE" \
		sh -c "[ \$(grep -c . '$WORK/layers-$cli') -gt $shared ] && [ \"\$(head -n $shared '$WORK/layers-$cli')\" = \"\$(head -n $shared '$WORK/layers-all')\" ]"
	# shellcheck disable=SC2016 # expanded by the shell in the image
	prun --network none --entrypoint /bin/sh "$img" -c \
		'for c in claude codex pi; do command -v "$c" >/dev/null && echo "has $c"; done; for c in git jq docker; do command -v "$c"; done' \
		>"$WORK/has-$cli" 2>&1
	ok "$img holds $cli and no other CLI" [ "$(grep '^has ' "$WORK/has-$cli")" = "has $cli" ]
	ok "$img holds the toolset (git, jq, docker)" [ "$(grep -c '^/' "$WORK/has-$cli")" -eq 3 ]
done
# Each CLI in its own image, managed, through the firewall to the mock gateway.
if podman image exists "$REPO:claude" && podman image exists "$REPO:codex" && podman image exists "$REPO:pi"; then
	ALL_IMAGE=$IMAGE  # sandboxed() runs $IMAGE
	IMAGE=$REPO:claude; managed own-claude claude -p "say pong"
	IMAGE=$REPO:codex; managed own-codex codex exec --skip-git-repo-check "say pong"
	IMAGE=$REPO:pi; managed own-pi pi -p "say pong"
	IMAGE=$ALL_IMAGE
	for cli in claude codex pi; do
		ok "$REPO:$cli: $cli prints the gateway's reply in the managed profile (exit $(cat "$WORK/own-$cli.rc"))" \
			grep -qF "$REPLY" "$WORK/own-$cli.out"
	done
	# The host script, given the repository without a tag, runs a CLI's own image.
	host_script --image "$REPO" --dry-run codex >"$WORK/host-own.dry" 2>&1
	ok "host script: --image $REPO runs $REPO:codex for codex" grep -qxF "  '$REPO:codex' \\" "$WORK/host-own.dry"
	host_script --image "$REPO" --workspace "$WORK/ws" --dry-run claude >"$WORK/host-own-claude.dry" 2>&1
	ok "host script: --image $REPO runs $REPO:claude for claude" grep -qxF "  '$REPO:claude' \\" "$WORK/host-own-claude.dry"
	: >"$WORK/gateway.log"
	host_script --image "$REPO" --workspace "$WORK/ws" claude -- -p "say pong" \
		>"$WORK/host-own.out" 2>"$WORK/host-own.err"
	rc=$?
	tail -3 "$WORK/host-own.err" | note
	ok "host script: claude in its own image prints the gateway's reply (exit $rc)" grep -qF "$REPLY" "$WORK/host-own.out"
fi

. "$HERE/tui.sh"  # 10. a person at a terminal: the three TUIs in tmux (tests/image/tui.sh)

# --- 11. deploy/kubernetes with podman kube play (tests/image/kube.sh; its lines follow) ------
CLI_SANDBOX_TEST_IMAGE="$IMAGE" timeout 1200 sh "$HERE/kube.sh" >"$WORK/kube.tap" 2>&1; rc=$?; note <"$WORK/kube.tap"; ok "kube play: the Job's pod, init then restricted agent container ($(tail -1 "$WORK/kube.tap"))" [ $rc -eq 0 ]

# --- 12. deploy/kubernetes/interactive with podman kube play (tests/image/kube_pinned.sh) -----
CLI_SANDBOX_TEST_IMAGE="$IMAGE" timeout 600 sh "$HERE/kube_pinned.sh" >"$WORK/kube_pinned.tap" 2>&1; rc=$?; note <"$WORK/kube_pinned.tap"; ok "kube play: the pinned interactive pod, the resolver beside the agent ($(tail -1 "$WORK/kube_pinned.tap"))" [ $rc -eq 0 ]

echo "# init binary size: $(in_image 'stat -c %s /usr/local/sbin/cli-sandbox-init') bytes"
echo "# image size: $(podman image inspect --format '{{.Size}}' "$IMAGE") bytes"
t_done
