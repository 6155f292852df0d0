#!/bin/sh
# Benchmark (prints figures, asserts only that each run succeeded): the host side's own time
# before the engine starts (issue 32's goal: at most 50 ms), for the dry runs a person types,
# with a fake engine that answers at once (the engine's own time is not the host side's), and
# how many programs each run executes (strace -f, when installed). docs/hostctl.md, "Time".
# usage: host_time.sh PATH-TO-cli-sandbox-ctl [RUNS]
set -u
CTL=$1
RUNS=${2:-40}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$ROOT/tests/lib/tap.sh"
T=$(mktemp -d /tmp/cli-sandbox-host-time.XXXXXX)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/bin" "$T/home" "$T/ws"
# The fake engine: true(1) answers every engine command with success and no output. Its file,
# not 'command -v true' (the shell's builtin's name: a link to it dangled, and a docker client
# elsewhere on PATH answered instead, 30-60 ms of its own in every figure before).
for t in /usr/bin/true /bin/true; do [ -x "$t" ] && ln -s "$t" "$T/bin/docker" && break; done
[ -x "$T/bin/docker" ] || { echo "Bail out! no true(1) in /usr/bin or /bin for the fake engine"; exit 1; }

# person ARG...: the runner as a person runs it, with a fresh home and a key in the shell.
# HARNESS=1: the same subshell and env with nothing to run (env prints the environment): the
# measurement's own time, not the host side's.
HARNESS=''
person() {
	if [ -n "$HARNESS" ]; then (cd "$T/ws" && env -i PATH="$T/bin:/usr/local/bin:/usr/bin:/bin") >/dev/null 2>&1; return; fi
	(cd "$T/ws" && env -i PATH="$T/bin:/usr/local/bin:/usr/bin:/bin" HOME="$T/home" \
		CLI_SANDBOX_CTL="$CTL" CLI_SANDBOX_ENGINE=docker ANTHROPIC_API_KEY=sk-host-time-not-a-key \
		sh "$ROOT/host/cli-sandbox" "$@") >/dev/null 2>&1
}

# measure NAME ARG...: mean, min and max milliseconds of RUNS runs, and the execs of one.
measure() {
	name=$1
	shift
	person "$@"
	ok "$name: runs (exit 0)" [ $? -eq 0 ] || return
	i=0 total=0 min='' max=0
	while [ $i -lt "$RUNS" ]; do
		t0=$(date +%s%N)
		person "$@"
		t1=$(date +%s%N)
		ms=$(((t1 - t0) / 1000))
		total=$((total + ms))
		[ -n "$min" ] && [ "$min" -le "$ms" ] || min=$ms
		[ "$max" -ge "$ms" ] || max=$ms
		i=$((i + 1))
	done
	mean=$((total / RUNS))
	[ -z "$HARNESS" ] || { harness=$mean; printf '# %-28s mean %4d.%03d ms (the subshell, env and date around each run: subtracted below)\n' "$name" $((mean / 1000)) $((mean % 1000)); return; }
	net=$((mean - harness))
	execs='(strace not installed)'
	if command -v strace >/dev/null 2>&1; then
		(cd "$T/ws" && env -i PATH="$T/bin:/usr/local/bin:/usr/bin:/bin" HOME="$T/home" \
			CLI_SANDBOX_CTL="$CTL" CLI_SANDBOX_ENGINE=docker ANTHROPIC_API_KEY=sk-host-time-not-a-key \
			strace -f -qq -e trace=execve,fork,vfork,clone,clone3 -o "$T/trace" sh "$ROOT/host/cli-sandbox" "$@") >/dev/null 2>&1
		execs="$(grep -c 'execve(' "$T/trace") execs, $(grep -Ec '(fork|clone3?)\(' "$T/trace") forks"
	fi
	printf '# %-28s mean %4d.%03d ms  min %4d.%03d  max %4d.%03d  host side %d.%03d ms  (%s runs; %s)\n' "$name" \
		$((mean / 1000)) $((mean % 1000)) $((min / 1000)) $((min % 1000)) \
		$((max / 1000)) $((max % 1000)) $((net / 1000)) $((net % 1000)) "$RUNS" "$execs"
}

read -r load _ </proc/loadavg
# For scale: what one exec costs on this machine now (sh starting and running nothing).
i=0 t0=$(date +%s%N)
while [ $i -lt "$RUNS" ]; do sh -c : ; i=$((i + 1)); done
t1=$(date +%s%N)
echo "# load $load; $(nproc) CPUs; an exec of sh costs $(((t1 - t0) / RUNS / 1000)) us here; each figure below includes one exec of date (the clock read after)"
harness=0
HARNESS=1 measure "the harness alone"
HARNESS=''
measure "claude --dry-run (keys out)" --managed http://192.0.2.1:4000 --dry-run claude
measure "claude --keys-in --dry-run" --keys-in --managed http://192.0.2.1:4000 --dry-run claude
measure "--interactive --dry-run" --interactive --dry-run claude
# what the engine's commands were: the fake's, never another docker (the figures would hold its time)
(cd "$T/ws" && env -i PATH="$T/bin:/usr/local/bin:/usr/bin:/bin" HOME="$T/home" CLI_SANDBOX_CTL="$CTL" \
	CLI_SANDBOX_ENGINE=docker sh -c 'command -v docker') >"$T/which"
ok "the engine the runs found is the fake one" [ "$(cat "$T/which")" = "$T/bin/docker" ]
t_done
