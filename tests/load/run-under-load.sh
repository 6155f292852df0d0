#!/bin/sh
# Runs ctest tests again and again beside a CPU and I/O load on every core,
# and prints how many runs passed: a check that depends on the machine's
# timing (a wait that load outruns, a count of retries or sockets) shows up
# here as a run that fails, where a quiet machine passes it every time.
#
# usage: tests/load/run-under-load.sh [-n RUNS] [-b BUILD-DIR] [-t SECONDS] -- CTEST-ARGS...
#   -n RUNS      how many times to run (default 20)
#   -b BUILD     the build directory (default build)
#   -t SECONDS   the load's upper bound (default 1800): stress-ng stops by
#                itself then, even if this script is killed
#   CTEST-ARGS   what to run, e.g. -R netns_interactive, or -L unit, -L netns
# examples (as root, after a build):
#   tests/load/run-under-load.sh -n 20 -- -R netns_interactive
#   tests/load/run-under-load.sh -n 5 -- -L 'unit|netns'
#
# The load is stress-ng (Debian's): one CPU worker and one disk writer
# (--hdd, files in a temporary directory on the disk that holds /tmp, where
# the tests keep their logs) for each online core.  It runs in a process
# group of its own, and only that group is ended, by its id, when the runs
# are done.  The machine may be shared: the load hurts everyone on it, so
# run this once, when the change is ready, not in a loop.
# Exit status: 0 when every run passed, 1 when one failed, 2 on a usage or
# setup error.
set -u
RUNS=20
BUILD=build
LIMIT=1800
while getopts n:b:t: opt; do
	case $opt in
	n) RUNS=$OPTARG ;;
	b) BUILD=$OPTARG ;;
	t) LIMIT=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ "${1:-}" = -- ] && shift
if [ $# -eq 0 ]; then
	echo "run-under-load.sh: say what to run after --, e.g. -- -R netns_interactive" >&2
	exit 2
fi
case $RUNS$LIMIT in
*[!0-9]*) echo "run-under-load.sh: -n and -t take whole numbers" >&2; exit 2 ;;
esac
if ! command -v stress-ng > /dev/null 2>&1; then
	echo "run-under-load.sh: stress-ng is missing; install it (tests/install-deps.sh)" >&2
	exit 2
fi
if [ ! -f "$BUILD/CTestTestfile.cmake" ]; then
	echo "run-under-load.sh: no ctest build in '$BUILD'; build first or pass -b BUILD-DIR" >&2
	exit 2
fi

CORES=$(getconf _NPROCESSORS_ONLN)
WORK=$(mktemp -d)
LOAD=""
# running PID: the process exists and is not a zombie
running() { [ -e "/proc/$1" ] && ! grep -q '^[0-9]* ([^)]*) Z' "/proc/$1/stat" 2> /dev/null; }
# stop_load: SIGTERM to the load's group, up to 10 s for stress-ng to end
# its workers, then SIGKILL to whatever is left of the group.  The group id
# cannot have been reused: its leader is our child, not yet waited for.
# (dash's kill takes "-s TERM --" before a negative pid, not "-TERM --".)
stop_load() {
	if [ -n "$LOAD" ]; then
		kill -s TERM -- "-$LOAD" 2> /dev/null
		n=0
		while running "$LOAD" && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
		kill -s KILL -- "-$LOAD" 2> /dev/null
		wait "$LOAD" 2> /dev/null
		LOAD=""
	fi
}
trap 'stop_load; rm -rf "$WORK/hdd"' EXIT
trap 'exit 1' INT TERM

mkdir "$WORK/hdd"
# setsid: stress-ng and its workers in a group of their own (a background
# job of a non-interactive shell is no group leader, so setsid execs in
# place and $! is the group's id).
setsid stress-ng --cpu "$CORES" --hdd "$CORES" --hdd-bytes 128M --temp-path "$WORK/hdd" \
	--timeout "$LIMIT" --quiet > "$WORK/stress.log" 2>&1 &
LOAD=$!
sleep 1
if ! kill -0 "$LOAD" 2> /dev/null; then
	echo "run-under-load.sh: stress-ng did not start:" >&2
	cat "$WORK/stress.log" >&2
	exit 2
fi
echo "# load: stress-ng --cpu $CORES --hdd $CORES (group $LOAD), at most $LIMIT s; logs in $WORK"

passed=0
i=1
while [ "$i" -le "$RUNS" ]; do
	start=$(date +%s)
	if timeout 900 ctest --test-dir "$BUILD" --output-on-failure "$@" > "$WORK/run-$i.log" 2>&1; then
		passed=$((passed + 1))
		verdict=passed
	else
		verdict="FAILED (see $WORK/run-$i.log)"
		grep -h '^not ok' "$WORK/run-$i.log" | sed 's/^/#   /'
	fi
	echo "run $i/$RUNS: $verdict in $(($(date +%s) - start)) s, load average $(cut -d' ' -f1-3 /proc/loadavg)"
	i=$((i + 1))
done
stop_load
echo "$* under load: $passed/$RUNS passed"
[ "$passed" -eq "$RUNS" ] || exit 1
rm -rf "$WORK"  # kept, with every run's log, when a run failed
