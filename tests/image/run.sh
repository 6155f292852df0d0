#!/bin/sh
# Image tests, with podman, as root:
#   1. the local Debian trixie base image (make-base-image.sh) and the cli-sandbox image
#      (Dockerfile; Node.js from Debian via INSTALL_NODEJS_FROM_APT=1);
#   2. what the image holds: entrypoint, labels, the node user, /workspace, a static
#      init, no setuid/setgid files, none of sudo/iptables/ipset/dig/jq, the pinned CLIs;
#   3. --check and --dry-run without any privilege;
#   4. the managed profile end to end: the init programs the firewall in a test network
#      namespace, drops privileges, and each real CLI (claude, codex, pi) gets the mock
#      gateway's reply from 192.0.2.1:8080 in a second namespace; other ports are refused.
#
# usage: sh tests/image/run.sh
# environment:
#   CLI_SANDBOX_TEST_IMAGE  image to build and test (default localhost/cli-sandbox:test)
#   CLI_SANDBOX_BASE_IMAGE  local Debian base (default localhost/cli-sandbox-base:trixie)
#   SKIP_IMAGE_BUILD=1      test CLI_SANDBOX_TEST_IMAGE as it is
#   CLI_SANDBOX_EXTRA_CA    PEM bundle npm trusts during the build (default: the host's
#                           /etc/ssl/certs/ca-certificates.crt; empty: none)
#   PODMAN_RUN_ARGS         extra `podman run`/`podman build` options (default: runc and
#                           ulimits that work where crun or the default limits do not)
# Needs: podman, runc, debootstrap (make-base-image.sh installs it), iproute2, python3.
# Traffic stays inside two network namespaces made here (192.0.2.0/24).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
IMAGE=${CLI_SANDBOX_TEST_IMAGE:-localhost/cli-sandbox:test}
BASE=${CLI_SANDBOX_BASE_IMAGE:-localhost/cli-sandbox-base:trixie}
RUNARGS=${PODMAN_RUN_ARGS:---runtime runc --ulimit nofile=1024:1024 --ulimit nproc=1000:1000}
EXTRA_CA=${CLI_SANDBOX_EXTRA_CA-/etc/ssl/certs/ca-certificates.crt}
REPLY="pong from the image test gateway"

NS_GW=csb-img-gw-$$
NS_SBX=csb-img-sbx-$$
WORK=$(mktemp -d /tmp/cli-sandbox-image-test.XXXXXX)
GW_PID=
n=0
failures=0

cleanup() {
	if [ -n "$GW_PID" ]; then kill "$GW_PID" 2>/dev/null; wait "$GW_PID" 2>/dev/null; fi
	ip netns del "$NS_SBX" 2>/dev/null
	ip netns del "$NS_GW" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ok() {  # ok DESCRIPTION COMMAND...
	desc=$1
	shift
	n=$((n + 1))
	if "$@" >/dev/null 2>&1; then
		echo "ok $n - $desc"
	else
		echo "not ok $n - $desc"
		failures=$((failures + 1))
	fi
}
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
	t0=$(date +%s)
	sh "$HERE/make-base-image.sh" "$BASE" >"$WORK/base.log" 2>&1 ||
		{ tail -20 "$WORK/base.log" | note; bail "make-base-image.sh $BASE failed"; }
	echo "# base image $BASE ready in $(($(date +%s) - t0))s"
	secret=
	[ -n "$EXTRA_CA" ] && [ -s "$EXTRA_CA" ] && secret="--secret id=extra_ca,src=$EXTRA_CA"
	t0=$(date +%s)
	# shellcheck disable=SC2086
	if ! timeout 3600 podman build --network host $RUNARGS $secret \
		--build-arg BUILD_BASE="$BASE" --build-arg RUNTIME_BASE="$BASE" \
		--build-arg INSTALL_NODEJS_FROM_APT=1 -t "$IMAGE" "$ROOT" >"$WORK/build.log" 2>&1; then
		tail -30 "$WORK/build.log" | note
		bail "podman build failed"
	fi
	echo "# image $IMAGE built in $(($(date +%s) - t0))s"
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
in_image 'for t in sudo iptables ip6tables ipset dig nslookup jq; do command -v "$t"; done' >"$WORK/tools" 2>&1
ok "no sudo, iptables, ipset, dig, nslookup or jq" [ ! -s "$WORK/tools" ]
note <"$WORK/tools"
in_image 'test -s /usr/local/share/cli-sandbox/pi-base-url.js && test -d /etc/cli-sandbox/profiles' >/dev/null 2>&1
ok "pi's base-URL extension and the profile directory are installed" [ $? -eq 0 ]

ctr=$(podman create --network none "$IMAGE" 2>/dev/null) &&
	podman cp "$ctr:/usr/local/sbin/cli-sandbox-init" "$WORK/init" >/dev/null 2>&1
[ -n "${ctr:-}" ] && podman rm "$ctr" >/dev/null 2>&1
ldd "$WORK/init" >"$WORK/ldd" 2>&1
ok "the init is a static executable" grep -q 'not a dynamic executable' "$WORK/ldd"

in_image 'export HOME=/tmp; claude --version; codex --version; pi --version 2>&1' >"$WORK/versions" 2>&1
note <"$WORK/versions"
ok "claude is the pinned version" grep -qx "$(label io.cli-sandbox.claude-code.version) (Claude Code)" "$WORK/versions"
ok "codex is the pinned version" grep -qx "codex-cli $(label io.cli-sandbox.codex.version)" "$WORK/versions"
ok "pi is the pinned version" grep -qx "$(label io.cli-sandbox.pi.version)" "$WORK/versions"

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
if ! { ip netns add "$NS_GW" && ip netns add "$NS_SBX" &&
	ip -n "$NS_GW" link set lo up && ip -n "$NS_SBX" link set lo up &&
	ip link add csbg$$ netns "$NS_GW" type veth peer name csbs$$ netns "$NS_SBX" &&
	ip -n "$NS_GW" addr add 192.0.2.1/24 dev csbg$$ && ip -n "$NS_GW" link set csbg$$ up &&
	ip -n "$NS_SBX" addr add 192.0.2.2/24 dev csbs$$ && ip -n "$NS_SBX" link set csbs$$ up; }; then
	bail "cannot build the test network namespaces"
fi
ip netns exec "$NS_GW" python3 "$ROOT/tests/gateway/mock_gateway.py" --listen 192.0.2.1 --port 8080 \
	--reply "$REPLY" --log "$WORK/gateway.log" --max-seconds 900 >"$WORK/gw.out" 2>"$WORK/gw.err" &
GW_PID=$!
i=0
while ! grep -q listening "$WORK/gw.out" 2>/dev/null; do
	i=$((i + 1))
	[ $i -le 50 ] || bail "the mock gateway did not start"
	sleep 0.2
done

managed() {  # managed NAME COMMAND...: the image with the managed profile in $NS_SBX
	name=$1
	shift
	: >"$WORK/gateway.log"
	prun --network "ns:/run/netns/$NS_SBX" --cap-drop ALL --cap-add NET_ADMIN,SETUID,SETGID,SETPCAP \
		-e TASK_AGENT_MODEL_BASE_URL=$URL -e ANTHROPIC_API_KEY=sk-ant-test-not-a-key \
		-e OPENAI_API_KEY=sk-test-not-a-key "$IMAGE" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err"
	echo $? >"$WORK/$name.rc"
	cp "$WORK/gateway.log" "$WORK/$name.gw"
	echo "# $name: exit $(cat "$WORK/$name.rc"); stdout, stderr (last lines), gateway log:"
	note <"$WORK/$name.out"
	tail -5 "$WORK/$name.err" | note
	note <"$WORK/$name.gw"
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

managed status grep -E '^(Uid|Gid|Groups|CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs):' /proc/self/status
ok "the command runs as node with no capabilities and no_new_privs" sh -c "
	grep -Eq '^Uid:[[:space:]]+1000[[:space:]]+1000[[:space:]]+1000[[:space:]]+1000\$' '$WORK/status.out' &&
	grep -Eq '^Gid:[[:space:]]+1000[[:space:]]+1000[[:space:]]+1000[[:space:]]+1000\$' '$WORK/status.out' &&
	[ \$(grep -Ec '^Cap(Inh|Prm|Eff|Bnd|Amb):[[:space:]]+0+\$' '$WORK/status.out') -eq 5 ] &&
	grep -Eq '^NoNewPrivs:[[:space:]]+1\$' '$WORK/status.out'"

# Egress: the gateway's port connects, another port on the same host is refused fast.
probe='const n=require("net");const [h,p]=process.argv.slice(1);const s=n.connect({host:h,port:+p});
const t=setTimeout(()=>{console.log("timeout");process.exit(3)},5000);
s.on("connect",()=>{console.log("connected");process.exit(0)});
s.on("error",e=>{console.log(e.code);process.exit(2)});'
managed egress-ok node -e "$probe" 192.0.2.1 8080
ok "the sandbox reaches the gateway port" [ "$(cat "$WORK/egress-ok.rc")" = 0 ]
managed egress-no node -e "$probe" 192.0.2.1 8081
# Without the firewall this port would answer with a TCP reset (ECONNREFUSED); the
# firewall's reject (admin-prohibited) fails the connect at once with another error.
ok "another port on the gateway host is rejected by the firewall, fast" \
	sh -c "[ \"\$(cat '$WORK/egress-no.rc')\" = 2 ] && ! grep -Eq 'timeout|ECONNREFUSED' '$WORK/egress-no.out'"

echo "1..$n"
if [ $failures -ne 0 ]; then
	echo "# $failures of $n image checks failed"
	exit 1
fi
echo "# all $n image checks passed"
