#!/bin/sh
# Benchmark (prints figures, asserts only that each run succeeded): wall time
# and peak memory of cli-sandbox-init for --check, --dry-run, and a real
# managed start (firewall, readback, drop, exec of `true`) in a throwaway
# network namespace.  Root only.
# usage: startup.sh PATH-TO-cli-sandbox-init [RUNS]
set -u
INIT=$1
RUNS=${2:-20}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../netns/topology.sh"
trap topo_down EXIT INT TERM
NS="$TOPO_TAG-bench"
topo_ns "$NS" || exit 1
ip -n "$NS" link set lo up

cfg() {
	env -i PATH=/usr/bin:/bin CLI_SANDBOX_USER=nobody TASK_AGENT_MODEL_BASE_URL=http://192.0.2.1:8080 "$@"
}
measure() {  # measure NAME COMMAND...: the figures of RUNS runs
	name=$1
	shift
	out=$("$@" 2>&1)
	ok "$name: $out" [ $? -eq 0 ]
}
M="python3 $HERE/measure.py $RUNS"
measure "--check" cfg $M "$INIT" --check
measure "--dry-run" cfg $M "$INIT" --dry-run
measure "--dry-run=json" cfg $M "$INIT" --dry-run=json
# The init execs `true` directly (not PID 1), so the child measured is the
# init itself from start to the command's exit.
measure "real managed start (firewall, readback, drop, exec true)" \
	cfg ip netns exec "$NS" $M "$INIT" -- true
echo "# binary: $(stat -c %s "$INIT") bytes ($(file -b "$INIT" 2>/dev/null | cut -d, -f1-2))"
t_done
