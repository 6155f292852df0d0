# tally.awk: counts what one step of tests/run-all.sh proved, from what it
# printed.  Prints one line "PASSED FAILED SKIPPED", then one line per skip:
# "skip REASON", then one line per failure: "fail WHAT" (the "not ok" line, or
# the test that failed without one), so the closing table can name them: CI
# shows only the end of the output.
#
#   awk -v rc=STATUS -f tally.awk STEP-OUTPUT [LastTest.log...]
#
# The step's output is read first.  Where it holds no ctest run (no "Test
# project DIR" line; run-all.sh then passes no LastTest.log), its TAP lines
# are the checks: "ok", "not ok", and "ok ... # SKIP reason" (any case).
# Where it holds ctest runs, their DIR/Testing/Temporary/LastTest.log files
# follow: they keep every test's whole output, where the stream shows only a
# failing test's.  Each test then counts its own TAP lines; a test without
# any counts as one check; a test that ctest lists as skipped ("The
# following tests did not run: ... (Skipped)", from SKIP_RETURN_CODE or
# SKIP_REGULAR_EXPRESSION) counts as one skip whose reason is its "skip"
# line (else its first line).  The stream's summary ("N tests failed out of
# T") is a floor: a failed test whose output the log lacks is still a failure.
#
# A skip is never a pass, and a "not ok # SKIP" is a failure.  A step that
# exited non-zero counts at least one failure ("rc" is its status).

function tap(line, where,    r) {
	if (line ~ /^not ok([ \t]|$)/) {
		fail(where line)
		return 1
	}
	if (line !~ /^ok([ \t]|$)/)
		return 0
	# the SKIP directive: a '#' that check.h did not escape, then "skip"
	if (match(line, /(^|[^\\])#[ \t]*[Ss][Kk][Ii][Pp][^ \t]*/)) {
		r = substr(line, RSTART + RLENGTH)
		sub(/^[ \t:]*/, "", r)
		if (r == "") {
			r = substr(line, 1, RSTART)
			sub(/^ok[ \t]*[0-9]*[ \t]*-?[ \t]*/, "", r)
			r = (r == "" ? "" : r " ") "(no reason given)"
		}
		skip(where r)
		return 1
	}
	passed++
	return 1
}

function fail(what) {
	failed++
	fails[failed] = what
}

function skip(reason) {
	skipped++
	reasons[skipped] = reason
}

# the end of one test's block in LastTest.log
function close_test(result) {
	if (test == "")
		return
	if (test in ctest_skipped) {
		seen_skipped[test] = 1
		skip(test ": " (why != "" ? why : (first != "" ? first : "(no reason printed)")))
	} else {
		passed += tp
		for (i = 1; i <= tf; i++)
			fail(test ": " tfline[i])
		for (i = 1; i <= ts; i++)
			skip(test ": " treason[i])
		if (result == "Failed" && tf == 0)  # a crash, a timeout, an exit status after every check passed
			fail(test ": failed with no \"not ok\" line (a crash, a timeout or its exit status)")
		else if (result == "Passed" && tp + tf + ts == 0)
			passed++  # a test that reports no TAP: one check
		if (result == "Failed")
			counted_failed++
	}
	test = ""
}

BEGIN { passed = failed = skipped = 0; file = 0 }
FNR == 1 { file++ }

# --- the step's own output -------------------------------------------------------------
file == 1 && /^Test project / { ctest_runs++ }
file == 1 && /^The following tests did not run:/ { list = "skipped"; next }
file == 1 && /^The following tests FAILED:/ { list = "failed"; next }
file == 1 && list != "" && /^[ \t]+[0-9]+ - / {
	name = $0
	sub(/^[ \t]+[0-9]+ - /, "", name)
	sub(/ \([^()]*\)$/, "", name)
	if (list == "skipped")
		ctest_skipped[name] = 1
	else
		ctest_failed_name[++nfailed_names] = name
	next
}
file == 1 && list != "" { list = "" }
file == 1 && / tests? failed out of [0-9]+$/ {
	for (i = 1; i <= NF; i++)
		if ($i == "failed" && $(i - 1) ~ /^tests?$/)
			ctest_failed += $(i - 2)
}
file == 1 { stream[++nstream] = $0; next }

# --- LastTest.log: every test's whole output ---------------------------------------------
/^[0-9]+\/[0-9]+ Testing: / {
	close_test("")
	test = $0
	sub(/^[0-9]+\/[0-9]+ Testing: /, "", test)
	tp = tf = ts = 0
	why = first = ""
	in_output = 0
	next
}
test != "" && /^Output:$/ { in_output = 1; getline; next }
test != "" && /^<end of output>$/ { in_output = 0; next }
test != "" && in_output {
	if ($0 ~ /^not ok([ \t]|$)/)
		tfline[++tf] = $0
	else if ($0 ~ /^ok([ \t]|$)/ && match($0, /(^|[^\\])#[ \t]*[Ss][Kk][Ii][Pp][^ \t]*/)) {
		r = substr($0, RSTART + RLENGTH)
		sub(/^[ \t:]*/, "", r)
		treason[++ts] = (r != "" ? r : $0 " (no reason given)")
	} else if ($0 ~ /^ok([ \t]|$)/)
		tp++
	else if (first == "" && $0 != "")
		first = $0
	if (why == "" && tolower($0) ~ /skip/)
		why = $0
	next
}
test != "" && /^Test (Passed|Failed)\.$/ { close_test($2 == "Passed." ? "Passed" : "Failed") }

END {
	close_test("")
	for (name in ctest_skipped)  # a disabled test has no block in the log
		if (!(name in seen_skipped))
			skip(name ": did not run (ctest lists it so; no output)")
	if (ctest_runs == 0)
		for (i = 1; i <= nstream; i++)
			tap(stream[i], "")
	else if (counted_failed < ctest_failed) {
		# failures whose output the log lacks: ctest's own list names them
		names = ""
		for (i = 1; i <= nfailed_names; i++)
			names = names (i > 1 ? ", " : "") ctest_failed_name[i]
		for (i = counted_failed; i < ctest_failed; i++)
			fail("ctest: failed, with no output in LastTest.log (ctest's list: " (names != "" ? names : "none printed") ")")
	}
	if (rc != 0 && failed == 0)
		fail("exited with status " rc " and printed no \"not ok\"")
	print passed, failed, skipped
	for (i = 1; i <= skipped; i++)
		print "skip " reasons[i]
	for (i = 1; i <= failed; i++)
		print "fail " fails[i]
}
