# shellcheck shell=sh
# Controls for kernel features a whole test needs: each tries the feature
# itself, the way the code under test uses it, and where the kernel lacks it
# ends the test as a skip (exit 77, ctest's SKIP_RETURN_CODE) with a line
# that says why; any other failure of the control is a failure.  A skip is
# never a pass (docs/tests.md).  Source it.
#   need_nflog      the block log: an NFLOG group binds (nfnetlink_log), tried
#                   in a network namespace of its own (root)
CONTROLS_DIR=$(cd "$(dirname "$0")/.." && pwd)/lib
need_nflog() {
	c_why=$(unshare --net python3 "$CONTROLS_DIR/nflog_control.py" 1799 2>&1)
	case $? in
	0) ;;
	2) echo "skip: the block log needs NFLOG, and this kernel has none: $c_why"; exit 77 ;;
	*) echo "not ok - the NFLOG control failed: $c_why"; exit 1 ;;
	esac
}
