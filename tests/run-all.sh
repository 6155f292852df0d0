#!/bin/sh
# The project's test command (see README): run as root on Debian 12.
#
#   1. installs the build and test dependencies (apt)
#   2. normal build: every ctest test (unit, netns, caps, pid1, e2e, profiles)
#   3. AddressSanitizer + UBSan build: the same ctest tests again
#   4. libFuzzer on the URL parser for CLI_SANDBOX_FUZZ_SECONDS (default 20)
#   5. the host script's tests (shellcheck and a fake engine)
#   6. the image tests with podman, then the same image on a private dockerd,
#      then agent work under both (tests/image/agent_work.sh); all skipped
#      with SKIP_IMAGE_TESTS=1
# Exits non-zero when any step fails; every step runs even after a failure.
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
OUT=${CLI_SANDBOX_TEST_OUT:-$ROOT/build}
failed=""

step() {  # step NAME COMMAND...: runs and records a failure
	name=$1
	shift
	echo "=== $name"
	if "$@"; then
		echo "=== $name: passed"
	else
		echo "=== $name: FAILED"
		failed="$failed $name"
	fi
}

if [ "$(id -u)" -ne 0 ]; then
	echo "run-all.sh: the tests program nftables in network namespaces and need root; run it with sudo" >&2
	exit 1
fi
sh tests/install-deps.sh || { echo "run-all.sh: installing dependencies failed" >&2; exit 1; }

build() {  # build DIR CMAKE-ARGS...
	dir=$1
	shift
	cmake -S "$ROOT" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCLI_SANDBOX_WERROR=ON "$@" >/dev/null &&
		cmake --build "$dir" -j "$(nproc)" >/dev/null
}

step build build "$OUT/release"
step ctest ctest --test-dir "$OUT/release" --output-on-failure
step build-sanitize build "$OUT/sanitize" -DCLI_SANDBOX_SANITIZE=ON
# Leak checks stay on for the init; ptrace-based LeakSanitizer cannot run in
# a process that dropped its capabilities, which the tests set per test.
step ctest-sanitize env ASAN_OPTIONS=abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	ctest --test-dir "$OUT/sanitize" --output-on-failure
step build-fuzz build "$OUT/fuzz" -DCMAKE_C_COMPILER=clang -DCLI_SANDBOX_FUZZ=ON \
	-DCLI_SANDBOX_FUZZ_SECONDS="${CLI_SANDBOX_FUZZ_SECONDS:-20}"
step fuzz ctest --test-dir "$OUT/fuzz" -R '^fuzz\.' --output-on-failure
step host-script sh tests/host/run.sh
if [ "${SKIP_IMAGE_TESTS:-0}" != 1 ] && [ -f tests/image/run.sh ]; then
	step image sh tests/image/run.sh
	step image-docker sh tests/image/docker.sh
	# the same image: each CLI does agent work under podman and dockerd
	step image-agent-work sh tests/image/agent_work.sh
fi

if [ -n "$failed" ]; then
	echo "FAILED steps:$failed"
	exit 1
fi
echo "all steps passed"
