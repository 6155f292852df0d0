# TAP-style assertions shared by the shell tests; source it.
#   ok DESCRIPTION COMMAND...   passes when COMMAND succeeds
#   t_done                      prints "N passed, N failed"; fails if any failed
#   t_free_id START             the first uid/gid from START that no passwd or
#                               group entry names
T_PASS=0
T_FAIL=0
ok() {
	t_desc=$1
	shift
	if "$@"; then
		T_PASS=$((T_PASS + 1))
		echo "ok $((T_PASS + T_FAIL)) - $t_desc"
	else
		T_FAIL=$((T_FAIL + 1))
		echo "not ok $((T_PASS + T_FAIL)) - $t_desc"
	fi
}
t_done() {
	echo "$T_PASS passed, $T_FAIL failed"
	[ "$T_FAIL" -eq 0 ]
}
t_free_id() {
	t_id=$1
	while grep -q "^[^:]*:[^:]*:$t_id:" /etc/passwd /etc/group; do
		t_id=$((t_id + 1))
	done
	echo "$t_id"
}
