#!/bin/sh
# shellcheck disable=SC1091,SC2016 # sourced helpers; the payload expands inside the sandbox
# No setuid or setgid bits from the sandbox (issue 31), through the real
# userland as the sandbox user, under podman and a private dockerd
# (tests/dockerd.sh) with their default seccomp profiles: in
# 'host/cli-sandbox shell -- -c PAYLOAD' (bash as the sandbox user, the
# image's init and its filter), `chmod 4755`, `chmod u+s`, `chmod g+s` on a
# directory, `install -m 4755`, `cp -p` of a setuid file, and an `open` with
# O_CREAT and mode 04755 from Python and from node all fail, and no file in
# the workspace has either bit; `chmod 755` works.
#
# The control: the same payload in the same image as the same uid (1000),
# under the engine's own default profile but without the init (the image's
# entrypoint replaced by bash), sets every bit: what the engines allow is
# exactly what the sandbox's filter has to refuse, and what makes this test
# able to fail.
#
# cp -p: the source is made outside the sandbox, setuid and owned by the
# sandbox's uid (cp -p drops the bits itself when it cannot give the copy the
# source's owner, so a root-owned source would prove nothing), in a root-owned
# folder mounted read-only at /src, so that the sandbox cannot change it.
#
# usage: sh tests/image/setuid.sh   (root; after image/build.sh built the image)
# environment: CLI_SANDBOX_TEST_IMAGE (default localhost/cli-sandbox:test; any
#   image with the claude CLI: node), SKIP_DOCKER=1 / SKIP_PODMAN=1 to leave one half out.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$ROOT/tests/lib/tap.sh"
. "$ROOT/tests/dockerd.sh"
IMAGE=${CLI_SANDBOX_TEST_IMAGE:-localhost/cli-sandbox:test}
RLIMITS="--ulimit nofile=1024:1024 --ulimit nproc=1000:1000"
URL=http://192.0.2.1:8080   # the managed firewall's only hole; nothing is sent there
WORK=$(mktemp -d /tmp/cli-sandbox-setuid.XXXXXX)
chmod 755 "$WORK"
mkdir -p "$WORK/home" "$WORK/src"
# the source of cp -p: setuid, the sandbox user's, in a folder only root may change
cp /bin/true "$WORK/src/suid"
chown 1000:1000 "$WORK/src/suid"
chmod 4755 "$WORK/src/suid"

cleanup() {
	[ -z "$DOCKERD_PID" ] || dockerd_stop
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
bail() { echo "Bail out! $*"; exit 1; }

[ "$(id -u)" -eq 0 ] || bail "run as root"
podman image exists "$IMAGE" || bail "no image $IMAGE; run image/build.sh first"
[ "$(stat -c %a "$WORK/src/suid")" = 4755 ] || bail "cannot make the setuid source file here"

# Every attempt: "NAME STATUS", then every file's mode ("mode NAME OCTAL").
PAYLOAD='cd "$1" || exit 1
umask 022
try() { n=$1; shift; "$@" 2>>err.log; echo "$n $?"; }
touch f_chmod f_us f_755 && mkdir d_gs
try chmod_4755 chmod 4755 f_chmod
try chmod_us chmod u+s f_us
try chmod_gs_dir chmod g+s d_gs
try install_4755 install -m 4755 /bin/true f_install
try cp_p cp -p /src/suid f_cp
try python_open python3 -c "import os; os.close(os.open(\"f_python\", os.O_WRONLY | os.O_CREAT, 0o4755))"
try node_open node -e "const fs = require(\"fs\"); fs.closeSync(fs.openSync(\"f_node\", \"w\", 0o4755))"
try chmod_755 chmod 755 f_755
for f in f_* d_*; do stat -c "mode %n %a" "$f"; done
sed "s/^/err /" err.log'

# sandbox ENGINE DIR: the payload in 'cli-sandbox shell', the sandbox user's bash.
sandbox() {
	_g=''
	[ "$1" = podman ] && _g='--runtime runc'
	env HOME="$WORK/home" CLI_SANDBOX_HOME="$WORK/home/.config/cli-sandbox" \
		ANTHROPIC_API_KEY=sk-ant-setuid-test-not-a-key \
		CLI_SANDBOX_ENGINE_GLOBAL_ARGS="$_g" \
		CLI_SANDBOX_KEYS_IN=true CLI_SANDBOX_ENGINE_ARGS="$RLIMITS --network none -v $WORK/src:/src:ro" \
		timeout 300 sh "$ROOT/host/cli-sandbox" --engine "$1" --image "$IMAGE" --workspace "$2" \
		--managed "$URL" shell -- -c "$PAYLOAD" - /workspace </dev/null
}

# control ENGINE DIR: the same payload as uid 1000 under the engine's default
# profile, without the init.
control() {
	if [ "$1" = podman ]; then set -- podman "$2" --runtime runc; else set -- "$DOCKER" "$2"; fi
	_c=$1 _d=$2
	shift 2
	# shellcheck disable=SC2086 # RLIMITS: one option a word
	"$_c" "$@" run --rm $RLIMITS --network none --user 1000:1000 -v "$_d:/w" -v "$WORK/src:/src:ro" \
		--entrypoint bash "$IMAGE" -c "$PAYLOAD" - /w </dev/null
}

got() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }
mode() { awk -v k="$2" '$1 == "mode" && $2 == k { print $3 }' "$1"; }
has_setid() { case $1 in '' | *[!0-7]*) return 1 ;; esac; [ $((0$1 & 06000)) != 0 ]; }
REFUSED="chmod_4755:f_chmod chmod_us:f_us chmod_gs_dir:d_gs install_4755:f_install cp_p:f_cp python_open:f_python node_open:f_node"

half() {  # half ENGINE LABEL
	e=$1 L=$2
	for d in ws-$e ctl-$e; do mkdir "$WORK/$d" && chown 1000:1000 "$WORK/$d"; done
	control "$e" "$WORK/ctl-$e" >"$WORK/ctl-$e.out" 2>&1
	ok "$L control (no init): the payload ran" grep -q '^chmod_755 0$' "$WORK/ctl-$e.out"
	for kv in $REFUSED; do
		k=${kv%%:*} f=${kv#*:}
		ok "$L control (no init): $k sets the bit (status $(got "$WORK/ctl-$e.out" "$k"), mode $(mode "$WORK/ctl-$e.out" "$f"))" \
			has_setid "$(mode "$WORK/ctl-$e.out" "$f")"
	done

	sandbox "$e" "$WORK/ws-$e" >"$WORK/sbx-$e.out" 2>"$WORK/sbx-$e.err"
	echo "# $L sandbox exit $?"
	grep '^err .*not permitted' "$WORK/sbx-$e.out" | t_note
	ok "$L sandbox: the payload ran" grep -q '^chmod_755 ' "$WORK/sbx-$e.out"
	grep -q '^chmod_755 ' "$WORK/sbx-$e.out" || tail -20 "$WORK/sbx-$e.err" | t_note
	for kv in $REFUSED; do
		k=${kv%%:*} f=${kv#*:}
		s=$(got "$WORK/sbx-$e.out" "$k")
		ok "$L sandbox: $k fails (status $s)" sh -c '[ -n "$1" ] && [ "$1" != 0 ]' - "$s"
		m=$(mode "$WORK/sbx-$e.out" "$f")
		ok "$L sandbox: $f has no setuid/setgid bit (${m:-absent})" sh -c '[ -z "$1" ] || [ $((0$1 & 06000)) = 0 ]' - "$m"
	done
	ok "$L sandbox: the refusals say 'Operation not permitted'" grep -q '^err .*Operation not permitted' "$WORK/sbx-$e.out"
	ok "$L sandbox: chmod 755 works (status $(got "$WORK/sbx-$e.out" chmod_755), mode $(mode "$WORK/sbx-$e.out" f_755))" \
		[ "$(got "$WORK/sbx-$e.out" chmod_755) $(mode "$WORK/sbx-$e.out" f_755)" = "0 755" ]
	# what the host sees afterwards: nothing in the workspace with either bit
	ok "$L host: no file in the workspace has a setuid or setgid bit" \
		sh -c '[ -z "$(find "$1" -perm /6000 -print -quit)" ]' - "$WORK/ws-$e"
}

[ "${SKIP_PODMAN:-0}" = 1 ] && echo "# SKIP_PODMAN=1: the podman half is left out"
[ "${SKIP_PODMAN:-0}" = 1 ] || half podman podman
if [ "${SKIP_DOCKER:-0}" = 1 ]; then
	echo "# SKIP_DOCKER=1: the dockerd half is left out"
else
	dockerd_start || bail "the private dockerd did not start"
	dockerd_load "$IMAGE" || bail "cannot load $IMAGE into dockerd"
	half docker dockerd
fi
t_done
