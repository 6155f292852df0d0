#!/bin/sh
# tests/lib/tally.awk, which counts each step of tests/run-all.sh: its counts,
# and the "fail" lines that name what failed.  CI shows only the end of the
# output, so the closing table's list of failures is all it sees of one (stop
# 40's CI: "FAILED steps: ctest", with no name).
#   sh tally.sh TALLY.AWK
set -u
. "$(dirname "$0")/../lib/tap.sh"
TALLY=$1
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT

# a step's TAP stream: two passes, a skip, a failure
printf 'ok 1 - a\nok 2 - b\nok 3 - # SKIP no IA32\nnot ok 4 - the gateway answered 500\n' > "$d/tap"
awk -v rc=1 -f "$TALLY" "$d/tap" > "$d/out"
ok "TAP: 2 passed, 1 failed, 1 skipped" [ "$(head -n 1 "$d/out")" = "2 1 1" ]
ok "TAP: the failure is named" grep -qx 'fail not ok 4 - the gateway answered 500' "$d/out"
ok "TAP: the skip keeps its reason" grep -qx 'skip no IA32' "$d/out"

# a ctest run: one test failing with a "not ok", one crashing with none, one passing
cat > "$d/stream" <<'S'
Test project /nowhere/build
2 tests failed out of 3
The following tests FAILED:
	  4 - netns.one (Failed)
	  7 - pid1.crash (Failed)
S
cat > "$d/log" <<'L'
1/3 Testing: netns.one
Output:
----------------------------------------------------------
ok 1 - allowed
not ok 2 - refused TCP reset
<end of output>
Test Failed.
2/3 Testing: pid1.crash
Output:
----------------------------------------------------------
Segmentation fault
<end of output>
Test Failed.
3/3 Testing: unit.ok
Output:
----------------------------------------------------------
ok 1 - fine
<end of output>
Test Passed.
L
awk -v rc=8 -f "$TALLY" "$d/stream" "$d/log" > "$d/out"
ok "ctest: 2 passed, 2 failed, 0 skipped" [ "$(head -n 1 "$d/out")" = "2 2 0" ]
ok "ctest: a 'not ok' is named with its test" grep -qx 'fail netns.one: not ok 2 - refused TCP reset' "$d/out"
ok "ctest: a failure with no 'not ok' is named" grep -q '^fail pid1.crash: failed with no' "$d/out"

# ctest says a test failed, and the log lacks it: ctest's own list names it
awk -v rc=8 -f "$TALLY" "$d/stream" /dev/null > "$d/out"
ok "ctest, no log: the floor counts 2 failures" [ "$(head -n 1 "$d/out")" = "0 2 0" ]
ok "ctest, no log: ctest's list is named" grep -q '^fail ctest: .*netns.one, pid1.crash' "$d/out"

# a step that exited non-zero and printed nothing
: > "$d/empty"
awk -v rc=2 -f "$TALLY" "$d/empty" > "$d/out"
ok "silent failure: counted" [ "$(head -n 1 "$d/out")" = "0 1 0" ]
ok "silent failure: its status named" grep -qx 'fail exited with status 2 and printed no "not ok"' "$d/out"
t_done
