#!/bin/sh
# shellcheck disable=SC1091,SC2016 # sourced helpers; the payloads expand inside the sandbox
# Limits a runaway agent cannot cross (issue 25), under podman and a private
# dockerd (tests/dockerd.sh), through the host script's own command:
#   - --dry-run shows every limit, its default and the value an option or a
#     variable raises it to; the engine's inspect output agrees;
#   - a fork bomb is held at the process limit while a trivial command on the
#     host keeps answering (its worst latency is measured: under 1 s), and the
#     container ends when the bomb's parent exits, with the parent's status;
#   - a memory hog is OOM-killed, PID 1 survives it and says so in one line,
#     the container exits 137; the command can neither lower its own
#     oom_score_adj below its start value nor write PID 1's;
#   - a CPU hog gets no more than the CPU bound, so the host keeps its core.
#
# "Through the host script's own command": 'host/cli-sandbox shell -- -c
# PAYLOAD', the sandbox a CLI would get with bash as its command, a key
# exported as a person does; the engine arguments (CLI_SANDBOX_ENGINE_ARGS)
# carry only the network and this machine's rlimit words.  Containers use
# --network none.
#
# Safety on a shared machine: the fork bomb starts only once the running
# container's process limit has been read back from the engine's inspect
# output (the payload waits for a file the test writes after that check); it
# runs under --pids-limit 128, far below the 1000 processes that uid 1000
# may have machine-wide (RLIMIT_NPROC counts a uid's processes in every
# container), is bounded by timeout, and runs once per engine.
#
# usage: sh tests/image/limits.sh   (root; after tests/image/run.sh built the image)
# environment: CLI_SANDBOX_TEST_IMAGE (default localhost/cli-sandbox:test),
#   SKIP_DOCKER=1 / SKIP_PODMAN=1 to leave one half out.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$ROOT/tests/lib/tap.sh"
. "$ROOT/tests/dockerd.sh"
IMAGE=${CLI_SANDBOX_TEST_IMAGE:-localhost/cli-sandbox:test}
RLIMITS="--ulimit nofile=1024:1024 --ulimit nproc=1000:1000"
URL=http://192.0.2.1:8080   # the managed firewall's only hole; nothing is sent there
WORK=$(mktemp -d /tmp/cli-sandbox-limits.XXXXXX)
chmod 755 "$WORK"
mkdir -p "$WORK/home" "$WORK/ws" "$WORK/bin"
chown 1000:1000 "$WORK/ws"

cleanup() {
	[ -z "$DOCKERD_PID" ] || dockerd_stop
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
note() { sed 's/^/#   /'; }
bail() { echo "Bail out! $*"; exit 1; }
ms() { echo $(($(date +%s%N) / 1000000)); }

[ "$(id -u)" -eq 0 ] || bail "run as root"
podman image exists "$IMAGE" || bail "no image $IMAGE; run tests/image/run.sh first"
HOST_CPUS=$(getconf _NPROCESSORS_ONLN)

# cs ENGINE ARG...: the host script as a person runs it, with this test's HOME and a key
# exported in its shell; bounded by CS_TIMEOUT seconds (default 300).
cs() {
	_e=$1
	shift
	_g=''
	[ "$_e" = podman ] && _g='--runtime runc'
	env PATH="$WORK/bin:$PATH" HOME="$WORK/home" CLI_SANDBOX_HOME="$WORK/home/.config/cli-sandbox" \
		ANTHROPIC_API_KEY=sk-ant-limits-test-not-a-key \
		CLI_SANDBOX_ENGINE_GLOBAL_ARGS="$_g" CLI_SANDBOX_KEYS_IN=true CLI_SANDBOX_ENGINE_ARGS="$RLIMITS --network none" \
		timeout "${CS_TIMEOUT:-300}" sh "$ROOT/host/cli-sandbox" --engine "$_e" --image "$IMAGE" --workspace "$WORK/ws" "$@" </dev/null
}

# sbx ENGINE SECONDS PAYLOAD [OPTION...]: the host script's own shell in the sandbox,
# 'cli-sandbox [OPTION...] shell -- -c PAYLOAD' (bash as the sandbox user, the same image,
# firewall and limits as the CLI), bounded by SECONDS; stdout, stderr and the status in
# $WORK/sbx.{out,err,rc}.
sbx() {
	_e=$1 _s=$2 _p=$3
	shift 3
	CS_TIMEOUT=$_s
	cs "$_e" --managed "$URL" "$@" shell -- -c "$_p" >"$WORK/sbx.out" 2>"$WORK/sbx.err"
	echo $? >"$WORK/sbx.rc"
	CS_TIMEOUT=''
}

# arg_after FILE WORD: the dry-run's argument after WORD (its first occurrence).
arg_after() { awk -v w="  '$2' \\\\" '$0 == w { getline; sub(/^  \x27/, ""); sub(/\x27( \\)?$/, ""); print; exit }' "$1"; }

# The cgroup's own files, v1 or v2, as the payloads read them.
CG='pids() { cat /sys/fs/cgroup/pids/pids.$1 2>/dev/null || cat /sys/fs/cgroup/pids.$1; }
cpu_ns() { cat /sys/fs/cgroup/cpuacct/cpuacct.usage 2>/dev/null || cat /sys/fs/cgroup/cpu,cpuacct/cpuacct.usage 2>/dev/null ||
	awk "/^usage_usec/ { print \$2 * 1000 }" /sys/fs/cgroup/cpu.stat; }
mem_max() { cat /sys/fs/cgroup/memory/memory.limit_in_bytes 2>/dev/null || cat /sys/fs/cgroup/memory.max; }
cpu_quota() { if [ -r /sys/fs/cgroup/cpu.max ]; then read -r q p </sys/fs/cgroup/cpu.max
	else read -r q </sys/fs/cgroup/cpu/cpu.cfs_quota_us; read -r p </sys/fs/cgroup/cpu/cpu.cfs_period_us; fi
	echo $((q * 1000 / p)); }
swap_max() { cat /sys/fs/cgroup/memory/memory.memsw.limit_in_bytes 2>/dev/null || cat /sys/fs/cgroup/memory.swap.max 2>/dev/null || echo none; }
'

# below VALUE LIMIT: VALUE is a number under LIMIT.
below() { case $1 in '' | *[!0-9]*) return 1 ;; esac; [ "$1" -lt "$2" ]; }

# busy_share: the milli-cores one busy process on the host gets in 3 s of wall time.
busy_share() {
	python3 -c '
import os, time
t0, c0 = time.monotonic(), os.times()
while time.monotonic() - t0 < 3: pass
c1 = os.times()
print(int(1000 * ((c1.user - c0.user) + (c1.system - c0.system)) / (time.monotonic() - t0)))'
}

# container_id ENGINE: the one running container of $IMAGE (this test's image, its own tag).
container_id() {
	if [ "$1" = podman ]; then podman ps -q --filter "ancestor=$IMAGE" | head -1
	else "$DOCKER" ps -q --filter "ancestor=$IMAGE" | head -1; fi
}
inspect() {  # inspect ENGINE ID FORMAT
	if [ "$1" = podman ]; then podman inspect --format "$3" "$2"; else "$DOCKER" inspect --format "$3" "$2"; fi
}

half() {  # half ENGINE LABEL: every check for one engine
	e=$1
	L=$2
	# --- the defaults, --dry-run and the engine's view ---------------------------------------
	cs "$e" --managed "$URL" --dry-run pi >"$WORK/dry-default" 2>"$WORK/dry-default.err"
	mem=$(awk '/^MemTotal:/ { printf "%d", $2 / 2048 }' /proc/meminfo)
	[ "$mem" -le 8192 ] || mem=8192
	cpus=$((HOST_CPUS > 1 ? HOST_CPUS - 1 : 1))
	tmp=$((mem / 4))
	[ "$tmp" -le 1024 ] || tmp=1024
	ok "$L --dry-run: --pids-limit 4096 by default" [ "$(arg_after "$WORK/dry-default" --pids-limit)" = 4096 ]
	ok "$L --dry-run: --memory is half the host's, at most 8g (${mem}m)" [ "$(arg_after "$WORK/dry-default" --memory)" = "${mem}m" ]
	ok "$L --dry-run: --memory-swap equals --memory (no swap on top)" [ "$(arg_after "$WORK/dry-default" --memory-swap)" = "${mem}m" ]
	ok "$L --dry-run: --cpus is all but one of the host's $HOST_CPUS ($cpus)" [ "$(arg_after "$WORK/dry-default" --cpus)" = "$cpus" ]
	ok "$L --dry-run: --ulimit nofile is set" sh -c "arg_after() { :; }; grep -q \"^  'nofile=[0-9]*:[0-9]*' \" '$WORK/dry-default'"
	ok "$L --dry-run: /tmp is a tmpfs of ${tmp}m" grep -qF "'/tmp:rw,nosuid,nodev,exec,size=${tmp}m,mode=1777'" "$WORK/dry-default"
	cs "$e" --managed "$URL" --dry-run --pids-limit 8192 --memory 3g --cpus "$HOST_CPUS" --nofile 4096 --tmp-size 512m pi >"$WORK/dry-raised"
	ok "$L --dry-run: the options raise each limit" sh -c "
		grep -qx \"  '8192' \\\\\\\\\" '$WORK/dry-raised' && grep -c \"^  '3072m' \" '$WORK/dry-raised' | grep -qx 2 &&
		grep -qx \"  'nofile=4096:4096' \\\\\\\\\" '$WORK/dry-raised' && grep -qF 'size=512m,' '$WORK/dry-raised'"
	ok "$L --dry-run: --cpus $HOST_CPUS is taken" [ "$(arg_after "$WORK/dry-raised" --cpus)" = "$HOST_CPUS" ]
	CLI_SANDBOX_PIDS_LIMIT=5000 CLI_SANDBOX_MEMORY=2g CLI_SANDBOX_CPUS=1 CLI_SANDBOX_NOFILE=2048 CLI_SANDBOX_TMP_SIZE=256m \
		cs "$e" --managed "$URL" --dry-run pi >"$WORK/dry-env"
	ok "$L --dry-run: the variables set each limit" sh -c "
		grep -qx \"  '5000' \\\\\\\\\" '$WORK/dry-env' && grep -c \"^  '2048m' \" '$WORK/dry-env' | grep -qx 2 &&
		grep -qx \"  'nofile=2048:2048' \\\\\\\\\" '$WORK/dry-env' && grep -qF 'size=256m,' '$WORK/dry-env'"
	cs "$e" doctor >"$WORK/doctor" 2>&1
	grep limits "$WORK/doctor" | note
	ok "$L doctor shows the limits" grep -q "^ok   limits: processes 4096, memory ${mem}m (no swap on top), CPUs $cpus, open files [0-9]*, /tmp ${tmp}m in memory" "$WORK/doctor"

	# The defaults in force, read inside the running container and from the engine.
	sbx "$e" 90 "$CG"'echo "pids.max=$(pids max) mem=$(mem_max) swap=$(swap_max) nofile=$(ulimit -n)"; df -m /tmp | tail -1; sleep 5' &
	spid=$!
	id='' i=0
	while [ -z "$id" ] && [ $i -lt 100 ]; do sleep 0.2; id=$(container_id "$e"); i=$((i + 1)); done
	seen=''
	[ -z "$id" ] || seen=$(inspect "$e" "$id" '{{.HostConfig.PidsLimit}} {{.HostConfig.Memory}} {{.HostConfig.MemorySwap}} {{.HostConfig.NanoCpus}}')
	wait "$spid"
	echo "# $L: the engine's inspect output: PidsLimit Memory MemorySwap NanoCpus = $seen"
	ok "$L defaults in the engine's inspect output: 4096 processes, ${mem} MiB with no swap on top, $cpus CPUs" \
		[ "$seen" = "4096 $((mem * 1048576)) $((mem * 1048576)) $((cpus * 1000000000))" ]
	note <"$WORK/sbx.out"
	ok "$L defaults in force: pids.max 4096, the memory limit ${mem} MiB, /tmp ${tmp} MiB" sh -c "
		grep -q '^pids.max=4096 mem=$((mem * 1048576)) ' '$WORK/sbx.out' && grep -q '^tmpfs  *$tmp ' '$WORK/sbx.out'"

	# --- the fork bomb ---------------------------------------------------------------------------
	rm -f "$WORK/ws/go"
	# bash, and not one fork in the parent once the bomb is off: at the limit every fork fails
	# (a shell's $(...) and sleep included), so it reads with builtins and naps on a FIFO.
	cat >"$WORK/ws/bomb.sh" <<'BOMB'
f=/sys/fs/cgroup/pids
[ -e $f/pids.current ] || f=/sys/fs/cgroup
mkfifo /tmp/nap && exec 9<>/tmp/nap || exit 98
for ((n = 0; n < 300; n++)); do [ -e /workspace/go ] && break; read -r -t 0.1 -u 9; done
[ -e /workspace/go ] || exit 99
( b() { b | b & }; b ) 2>/dev/null &
peak=0
for ((n = 0; n < 40; n++)); do read -r c <$f/pids.current; ((c > peak)) && peak=$c; read -r -t 0.2 -u 9; done
read -r max <$f/pids.max
echo "bomb: pids.max=$max peak=$peak"
echo "parent exits $EPOCHREALTIME"
exit 7
BOMB
	BOMB='exec bash /workspace/bomb.sh'
	sbx "$e" 120 "$BOMB" --pids-limit 128 &
	spid=$!
	id='' i=0
	while [ -z "$id" ] && [ $i -lt 100 ]; do sleep 0.2; id=$(container_id "$e"); i=$((i + 1)); done
	pl=''
	[ -z "$id" ] || pl=$(inspect "$e" "$id" '{{.HostConfig.PidsLimit}}')
	echo "# $L: the bomb's container ${id:-(none)} has PidsLimit ${pl:-?} in the engine's inspect output"
	if [ "$pl" = 128 ]; then
		: >"$WORK/ws/go"
		worst=0 t_end=$(($(ms) + 7000))
		while [ "$(ms)" -lt "$t_end" ]; do
			t0=$(ms)
			sh -c true
			d=$(($(ms) - t0))
			[ "$d" -le "$worst" ] || worst=$d
			sleep 0.1
		done
	else
		echo "# the process limit is not in place: the bomb is not set off"
		worst=''
	fi
	wait "$spid"
	t_gone=$(ms)
	note <"$WORK/sbx.out"
	grep -v 'warning:' "$WORK/sbx.err" | tail -3 | note
	echo "# $L: worst latency of a trivial host command during the bomb: ${worst:-?} ms"
	ok "$L fork bomb: the engine's inspect shows the process limit (128) before it is set off" [ "$pl" = 128 ]
	ok "$L fork bomb: held at the process limit" grep -q '^bomb: pids.max=128 peak=12[0-8]$' "$WORK/sbx.out"
	ok "$L fork bomb: a trivial host command answered within 1 s throughout (worst ${worst:-?} ms)" below "$worst" 1000
	ok "$L fork bomb: the container ends with the parent's status 7 (got $(cat "$WORK/sbx.rc"))" [ "$(cat "$WORK/sbx.rc")" = 7 ]
	pe=$(awk '/^parent exits [0-9.]+$/ { printf "%.0f", $3 * 1000 }' "$WORK/sbx.out")
	gone=''
	[ -z "$pe" ] || gone=$((t_gone - pe))
	echo "# $L: the container was gone ${gone:-?} ms after the bomb's parent exited"
	ok "$L fork bomb: the container ended within 10 s of the parent's exit" below "$gone" 10000
	ok "$L fork bomb: no container of the image is left" [ -z "$(container_id "$e")" ]

	# --- the memory hog --------------------------------------------------------------------------
	HOG='echo "adj self=$(cat /proc/self/oom_score_adj) pid1=$(cat /proc/1/oom_score_adj)"
a=$(cat /proc/self/oom_score_adj); echo $((a - 1)) >/proc/self/oom_score_adj 2>/dev/null && echo LOWERED-OWN
echo 1000 >/proc/1/oom_score_adj 2>/dev/null && echo WROTE-PID1
exec node -e "const a = []; for (;;) a.push(Buffer.alloc(1 << 20, 1))"'
	sbx "$e" 120 "$HOG" --memory 256m
	note <"$WORK/sbx.out"
	grep -v 'warning:' "$WORK/sbx.err" | tail -3 | note
	ok "$L memory hog: the container exits 137 (got $(cat "$WORK/sbx.rc"))" [ "$(cat "$WORK/sbx.rc")" = 137 ]
	ok "$L memory hog: PID 1 survived and named the OOM kill in one line" \
		sh -c "grep -c \"^cli-sandbox-init: error: the kernel's OOM killer killed the command (exit 137): the sandbox reached its memory limit (256 MiB)\" '$WORK/sbx.err' | grep -qx 1"
	ok "$L memory hog: the command could not lower its own oom_score_adj nor write PID 1's" \
		sh -c "grep -q '^adj self=' '$WORK/sbx.out' && ! grep -q -e LOWERED-OWN -e WROTE-PID1 '$WORK/sbx.out'"
	ok "$L memory hog: PID 1's oom_score_adj is no higher than the command's" \
		awk -F'[= ]' '/^adj self=/ { exit !($5 <= $3) }' "$WORK/sbx.out"
	if grep -qF "'--cap-add=SYS_RESOURCE'" "$WORK/dry"; then
		ok "$L memory hog: with CAP_SYS_RESOURCE granted, PID 1's oom_score_adj is -1000" grep -q ' pid1=-1000$' "$WORK/sbx.out"
	else
		t_skip "$L memory hog: PID 1 at -1000 (this host cannot grant CAP_SYS_RESOURCE, so the script does not ask for it)"
	fi

	# --- the CPU hog -----------------------------------------------------------------------------
	base=$(busy_share)
	CPU="$CG"'n=0; while [ $n -le '"$HOST_CPUS"' ]; do (while :; do :; done) & n=$((n + 1)); done
sleep 1; u0=$(cpu_ns); t0=$(date +%s%N); sleep 6; u1=$(cpu_ns); t1=$(date +%s%N)
echo "cpu: milli-cores=$(( (u1 - u0) * 1000 / (t1 - t0) )) quota=$(cpu_quota)"; kill 0'
	sbx "$e" 60 "$CPU" &
	spid=$!
	sleep 3
	# the host's own work: one busy process for 3 s of wall time; its share of a core
	share=$(busy_share)
	wait "$spid"
	note <"$WORK/sbx.out"
	used=$(sed -n 's/^cpu: milli-cores=\([0-9]*\) .*/\1/p' "$WORK/sbx.out")
	quota=$(sed -n 's/^cpu: .* quota=\([0-9]*\)$/\1/p' "$WORK/sbx.out")
	ok "$L CPU hog: the kernel's CPU quota for the sandbox is $cpus CPUs (${quota:-?} milli-cores)" [ "${quota:-}" = $((cpus * 1000)) ]
	echo "# $L: the CPU hog ($((HOST_CPUS + 1)) busy loops) used ${used:-?} milli-cores of the $HOST_CPUS CPUs (bound $cpus); a busy loop on the host got $share milli-cores meanwhile, $base before"
	ok "$L CPU hog: held at its bound of $cpus CPUs (${used:-?} milli-cores)" below "$used" $((cpus * 1000 + 100))
	# What the host got is reported, not judged: on a shared machine other work moves it.  The
	# kernel's own account of the sandbox's CPU time is judged: what it leaves is the host's.
	ok "$L CPU hog: at least one core is left to the host ($((HOST_CPUS * 1000 - ${used:-0})) milli-cores)" \
		sh -c "[ -n '$used' ] && [ $((HOST_CPUS * 1000 - ${used:-0})) -ge 900 ]"
}

[ "${SKIP_PODMAN:-0}" = 1 ] && echo "# SKIP_PODMAN=1: the podman half is left out"
[ "${SKIP_PODMAN:-0}" = 1 ] || half podman podman

if [ "${SKIP_DOCKER:-0}" = 1 ]; then
	echo "# SKIP_DOCKER=1: the dockerd half is left out"
else
	dockerd_start || bail "the private dockerd did not start"
	dockerd_load "$IMAGE" || bail "cannot load $IMAGE into dockerd"
	# Debian's client first in PATH (another, newer client may sit in /usr/local/bin).
	ln -s "$DOCKER" "$WORK/bin/docker"
	half docker dockerd
fi
t_done
