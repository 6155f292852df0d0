# shellcheck shell=sh
# Controls for kernel features a whole test needs: each tries the feature
# itself, the way the code under test uses it, and where the kernel lacks it
# ends the test as a skip (exit 77, ctest's SKIP_RETURN_CODE) with a line
# that says why; any other failure of the control is a failure.  A skip is
# never a pass (docs/tests.md).  Source it.
#   need_nflog      the block log: an NFLOG group binds (nfnetlink_log), tried
#                   in a network namespace of its own (root)
#   userns_works UID  returns 0 where UID (not root) can make the namespaces
#                   codex's sandbox and the init's probe make (user, mount,
#                   pid, net, ipc), without the init; else 1, with the reason
#                   in C_WHY (max_user_namespaces 0, a sysctl or an LSM that
#                   refuses them).  It does not exit: the caller skips the
#                   cases that need them and checks the fallback instead.
# Scripts one folder below tests/ source it (CONTROLS_DIR is found from $0).
CONTROLS_DIR=$(cd "$(dirname "$0")/.." && pwd)/lib
need_nflog() {
	c_why=$(unshare --net python3 "$CONTROLS_DIR/nflog_control.py" 1799 2>&1)
	case $? in
	0) ;;
	2) echo "skip: the block log needs NFLOG, and this kernel has none: $c_why"; exit 77 ;;
	*) echo "not ok - the NFLOG control failed: $c_why"; exit 1 ;;
	esac
}
userns_works() {
	if c_err=$(setpriv --reuid "$1" --regid "$1" --clear-groups \
		unshare --user --mount --pid --net --ipc --fork true 2>&1); then
		C_WHY=""
		return 0
	fi
	# shellcheck disable=SC2034 # read by the caller
	C_WHY="this host refuses unprivileged user namespaces without the init too (uid $1: $(printf '%s' "$c_err" | head -n 1))"
	return 1
}
