#!/bin/sh
# The project's test command (see README): run as root on Debian 12.
#
#   1. installs the build and test dependencies (apt)
#   2. normal build (gcc, RelWithDebInfo): every ctest test (unit, layers,
#      netns, caps, pid1, e2e, profiles, gateway, bench)
#   3. AddressSanitizer + UBSan build: the same ctest tests again
#   4. the build matrix: gcc and clang x Debug, Release, RelWithDebInfo and
#      MinSizeRel, each with -Werror, each running the unit tests (label
#      "unit"); a Fedora-style CFLAGS=-Wp,-D_FORTIFY_SOURCE=3 build; the
#      init's build without the host program (as the images build it); the
#      static configuration's archive check
#   5. libFuzzer on the pure parsers, CLI_SANDBOX_FUZZ_SECONDS in all
#      (default 40), split across the harnesses
#   6. the host script's tests (shellcheck and a fake engine)
#   7. the image tests with podman, then the same image on a private dockerd,
#      then the limits under both (tests/image/limits.sh), then agent work
#      under both (tests/image/agent_work.sh), then a person's first run
#      typed in tmux under both (tests/image/first_run.sh), then the gateway's
#      image and the switchable backends through it (tests/gateway/backends.sh,
#      tests/gateway/backends_clis.sh), the gateway's path under a private dockerd and
#      podman (tests/gateway/engine.sh), then the release checks
#      (tests/release/signed_copy.sh, tests/release/image.sh,
#      tests/release/arm64_image.sh); all skipped
#      with SKIP_IMAGE_TESTS=1
# Every build uses -DCLI_SANDBOX_WERROR=ON: warnings are errors here.
# Exits non-zero when any step fails; every step runs even after a failure.
#
# Not a step here: tests/load/run-under-load.sh runs ctest tests again and
# again beside a CPU and disk load on every core and prints a pass count,
# e.g. tests/load/run-under-load.sh -n 20 -- -R netns_interactive, or
# -n 5 -- -L 'unit|netns'.  A check that depends on the machine's timing
# fails there; docs/testing-under-load.md says how checks avoid that.
set -u
cd "$(dirname "$0")/.." || exit 1
ROOT=$(pwd)
OUT=${CLI_SANDBOX_TEST_OUT:-$ROOT/build}
failed=""

# Every step's output streams to stdout as it runs, and is kept: tally.awk
# counts its checks (TAP lines; for ctest runs, each test's TAP lines from
# its build directory's LastTest.log, and the tests ctest skipped) and its
# skips with their reasons.  The closing table comes from these files.
RESULTS=$(mktemp -d /tmp/cli-sandbox-run-all.XXXXXX) || exit 1
trap 'rm -rf "$RESULTS"' EXIT
trap 'exit 1' INT TERM
: > "$RESULTS/table"
: > "$RESULTS/skips"
: > "$RESULTS/fails"
nsteps=0

step() {  # step NAME COMMAND...: runs it, records its checks, skips, time and any failure
	name=$1
	shift
	nsteps=$((nsteps + 1))
	out="$RESULTS/$nsteps.out"
	echo "=== $name"
	start=$(date +%s)
	# stdout through tee (stderr as before); the status through a file, as
	# the pipeline's is tee's
	{ "$@"; echo $? > "$out.rc"; } | tee "$out"
	seconds=$(($(date +%s) - start))
	rc=$(cat "$out.rc" 2>/dev/null) || rc=1  # no file: the step was killed before it could write one
	# the build directories of the ctest runs it made, for their LastTest.log
	logs=$(sed -n 's|^Test project \(/.*\)$|\1/Testing/Temporary/LastTest.log|p' "$out" | sort -u)
	# shellcheck disable=SC2086 # one path a word (build directories have no spaces: see build())
	awk -v rc="$rc" -f "$ROOT/tests/lib/tally.awk" "$out" $logs > "$out.tally" ||
		echo "0 1 0" > "$out.tally"
	read -r p f s < "$out.tally"
	sed -n "s|^skip |$name: |p" "$out.tally" >> "$RESULTS/skips"
	sed -n "s|^fail |$name: |p" "$out.tally" >> "$RESULTS/fails"
	echo "$name $p $f $s $seconds" >> "$RESULTS/table"
	if [ "$rc" = 0 ] && [ "$f" = 0 ]; then
		echo "=== $name: passed ($p passed, $s skipped, ${seconds} s)"
	else
		echo "=== $name: FAILED (status $rc; $p passed, $f failed, $s skipped, ${seconds} s)"
		failed="$failed $name"
	fi
}

# The closing table: a line per step, every skip with its reason, every failed
# check, then the plain closing line alone (CI reads it).  A skip is never counted as a pass.
summary() {
	echo
	awk '
		BEGIN { printf "%-28s %8s %8s %8s %8s\n", "step", "passed", "failed", "skipped", "seconds" }
		{ printf "%-28s %8d %8d %8d %8d\n", $1, $2, $3, $4, $5; p += $2; f += $3; s += $4; t += $5 }
		END { printf "%-28s %8d %8d %8d %8d\n", "total", p, f, s, t }' "$RESULTS/table"
	if [ -s "$RESULTS/skips" ]; then
		echo
		echo "skipped, with the reason (a skip is not a pass):"
		sed 's/^/  /' "$RESULTS/skips"
	fi
	# what failed comes last, beside the closing line: CI shows only the end of the output
	if [ -s "$RESULTS/fails" ]; then
		echo
		echo "failed, each check (the first 40):"
		head -n 40 "$RESULTS/fails" | cut -c1-300 | sed 's/^/  /'
		n=$(wc -l < "$RESULTS/fails")
		[ "$n" -le 40 ] || echo "  ... and $((n - 40)) more: each step's output above names them"
	fi
	echo
	[ -z "$failed" ] || echo "FAILED steps:$failed"
	awk '{ p += $2; f += $3; s += $4 } END { printf "%d passed, %d failed, %d skipped\n", p, f, s }' "$RESULTS/table"
}

if [ "$(id -u)" -ne 0 ]; then
	echo "run-all.sh: the tests program nftables in network namespaces and need root; run it with sudo" >&2
	exit 1
fi
sh tests/install-deps.sh || { echo "run-all.sh: installing dependencies failed" >&2; exit 1; }

build() {  # build DIR CMAKE-ARGS...: RelWithDebInfo unless CMAKE-ARGS say otherwise
	dir=$1
	shift
	cmake -S "$ROOT" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCLI_SANDBOX_WERROR=ON "$@" >/dev/null &&
		cmake --build "$dir" -j "$(nproc)" >/dev/null
}

matrix() {  # matrix COMPILER BUILD-TYPE: build with -Werror, run the unit tests
	build "$OUT/matrix/$1-$2" -DCMAKE_C_COMPILER="$1" -DCMAKE_BUILD_TYPE="$2" &&
		ctest --test-dir "$OUT/matrix/$1-$2" -L '^unit$' --output-on-failure
}

fortify3() {  # Fedora and Arch pass their own _FORTIFY_SOURCE in CFLAGS
	(export CFLAGS=-Wp,-D_FORTIFY_SOURCE=3 && build "$OUT/fortify3" -DCMAKE_BUILD_TYPE=Release)
}

# The static configuration checks for every archive at configure time: where
# one is missing (Debian 12 has no libmnl.a) configure must stop and name it;
# where all exist it must succeed (the image build then links it fully).
static_configure() {
	dir="$OUT/static-configure"
	rm -rf "$dir"
	if cmake -S "$ROOT" -B "$dir" -DCLI_SANDBOX_STATIC=ON -DCLI_SANDBOX_TESTS=OFF >"$dir.log" 2>&1; then
		echo "static configuration: every archive found"
	else
		grep -q 'CLI_SANDBOX_STATIC=ON needs the static archive lib.*\.a' "$dir.log" &&
			echo "static configuration stops as it should: $(grep -o 'needs the static archive [^ ]*' "$dir.log")"
	fi
}

step build build "$OUT/release"
step ctest ctest --test-dir "$OUT/release" --output-on-failure
step build-sanitize build "$OUT/sanitize" -DCLI_SANDBOX_SANITIZE=ON
# Leak detection is on in every test.  It cannot see the last moments of a
# real start: after the privilege drop the init makes itself non-dumpable
# (PR_SET_DUMPABLE 0, docs/privileges.md), and LeakSanitizer then runs no
# check at exit (measured: no report, status unchanged).  Everything before
# the drop, the 71 and 78 paths included, is checked.
# The tests labelled "buildless" run nothing of the build under test (Python
# on manifests and the mock gateway; two builds of their own for the
# reproducible init): the step above ran them, and here they would prove the
# same again (about 3 minutes).
step ctest-sanitize env ASAN_OPTIONS=abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	ctest --test-dir "$OUT/sanitize" -LE '^buildless$' --output-on-failure
for cc in gcc clang; do
	for type in Debug Release RelWithDebInfo MinSizeRel; do
		# gcc RelWithDebInfo is the normal build above, with every test
		[ "$cc-$type" = gcc-RelWithDebInfo ] || step "matrix-$cc-$type" matrix "$cc" "$type"
	done
done
step build-fortify3 fortify3
# The image's and arm64's builds leave the host program out (CLI_SANDBOX_HOST off) and keep
# the tests: a test naming cli-sandbox-ctl outside a guard stops their configure (stop 39's CI,
# found only at the arm64 step an hour in). The same configuration here, in a minute.
step build-init-only build "$OUT/init-only" -DCLI_SANDBOX_HOST=OFF -DCLI_SANDBOX_TESTS=ON
step static-configure static_configure
step build-fuzz build "$OUT/fuzz" -DCMAKE_C_COMPILER=clang -DCLI_SANDBOX_FUZZ=ON \
	-DCLI_SANDBOX_FUZZ_SECONDS="${CLI_SANDBOX_FUZZ_SECONDS:-40}"
step fuzz ctest --test-dir "$OUT/fuzz" -L '^fuzz$' --output-on-failure
# The runner hands endpoints, models, status (and version, platform...) to cli-sandbox-ctl:
# this tree's, from the first build, never one a machine has on PATH from another tree.
export CLI_SANDBOX_CTL="$OUT/release/hostctl/cli-sandbox-ctl"
step host-script sh tests/host/run.sh
# every command the README shows is run by a test (here, or it names the one that does)
step readme sh tests/host/readme.sh
if [ "${SKIP_IMAGE_TESTS:-0}" != 1 ] && [ -f tests/image/run.sh ]; then
	# run.sh builds the all-in-one as this name and each CLI's own image beside it
	test_image=${CLI_SANDBOX_TEST_IMAGE:-localhost/cli-sandbox:test}
	test_repo=${test_image%:*}
	step image sh tests/image/run.sh
	step image-docker sh tests/image/docker.sh
	step image-pinning env CLI_SANDBOX_TEST_IMAGE="$test_repo:claude" sh tests/image/pinning.sh
	# the limits (a fork bomb, a memory hog, a CPU hog) under podman and dockerd
	step image-limits sh tests/image/limits.sh
	step image-setuid env CLI_SANDBOX_TEST_IMAGE="$test_repo:claude" sh tests/image/setuid.sh
	# the same image: each CLI does agent work under podman and dockerd
	step image-agent-work sh tests/image/agent_work.sh
	step image-protect env CLI_SANDBOX_TEST_IMAGE="$test_repo:claude" CLI_SANDBOX_TEST_CODEX_IMAGE="$test_repo:codex" sh tests/image/protect.sh
	# codex's sandbox chosen by the operator: 78 unless user namespaces work
	step image-codex-sandbox env CLI_SANDBOX_TEST_IMAGE="$test_repo:codex" sh tests/image/codex_sandbox.sh
	# the CLIs that only have images of their own: agent work and their TUI
	for c in gemini opencode; do
		step "image-agent-work-$c" env CLI_SANDBOX_TEST_CLIS=$c CLI_SANDBOX_TEST_IMAGE="$test_repo:$c" \
			sh tests/image/agent_work.sh
		step "image-tui-$c" env CLI_SANDBOX_TEST_CLIS=$c CLI_SANDBOX_TEST_IMAGE="$test_repo:$c" \
			sh tests/image/tui.sh
	done
	# issue 21: the gateway's image, then claude and pi through it, codex refused, ping, status
	step gateway-image env CLI_SANDBOX_ENGINE=podman sh image/build.sh --cli gateway localhost/cli-sandbox:latest
	step broker sh -c 'CLI_SANDBOX_ENGINE=podman sh image/build.sh --cli broker localhost/cli-sandbox:latest && sh tests/broker/broker.sh'
	step broker-run env CLI_SANDBOX_TEST_IMAGE_BASE="$test_repo" sh -c 'sh tests/broker/run.sh && KBTEST_ENGINE=docker sh tests/broker/run.sh'
	# the real gemini CLI through the key broker, keys out, against a mock Gemini API server
	step broker-gemini env CLI_SANDBOX_TEST_IMAGE_BASE="$test_repo" sh tests/broker/gemini.sh
	# a person's first run: the README's commands typed in tmux, under podman and dockerd, keys
	# out (after the broker's step: it runs through this tree's key broker image)
	step image-first-run env CLI_SANDBOX_TEST_IMAGE="${CLI_SANDBOX_TEST_IMAGE:-localhost/cli-sandbox:test}" \
		sh tests/image/first_run.sh
	step gateway-backends env CLI_SANDBOX_TEST_IMAGE="${CLI_SANDBOX_TEST_IMAGE:-localhost/cli-sandbox:test}" \
		CLI_SANDBOX_GATEWAY_IMAGE=localhost/cli-sandbox-gateway:latest CLI_SANDBOX_BROKER_IMAGE=localhost/cli-sandbox-broker:latest \
		timeout 1200 sh tests/gateway/backends.sh
	# the same for the CLIs of issue 22: opencode against every endpoint type, gemini refused
	step gateway-backends-clis env CLI_SANDBOX_TEST_IMAGE="$test_repo:opencode" \
		CLI_SANDBOX_GATEWAY_IMAGE=localhost/cli-sandbox-gateway:latest timeout 900 sh tests/gateway/backends_clis.sh
	# the gateway's path under a private dockerd, then podman: claude run and typed in shell
	# through the gateway, ping's credentials, doctor, the gateway's own confinement
	for e in docker podman; do
		step "gateway-engine-$e" env GWTEST_ENGINE=$e CLI_SANDBOX_TEST_IMAGE="$test_repo:claude" \
			CLI_SANDBOX_GATEWAY_IMAGE=localhost/cli-sandbox-gateway:latest timeout 1200 sh tests/gateway/engine.sh
	done
	# issue 34: cli-sandbox demo under podman and dockerd, as root and as a user
	step image-demo env CLI_SANDBOX_TEST_IMAGE="$test_repo:claude" \
		CLI_SANDBOX_GATEWAY_IMAGE=localhost/cli-sandbox-gateway:latest timeout 900 sh tests/image/demo.sh
	# issue 24: a default build signs its image (claude's, the smallest: rebuilt from the
	# cache, its output searched for the secret key), and podman refuses the signed copy
	# altered, signed by another key or unsigned
	step image-release-signed env CLI_SANDBOX_TEST_IMAGE="$test_repo:claude" sh tests/release/signed_copy.sh
	# the SBOMs, the static init rebuilt, signatures under the policy at a registry, pinned
	# manifests (the first image, the smallest, is the one pushed and signed)
	step image-release sh tests/release/image.sh "$test_repo:claude" "$test_image" \
		"$test_repo:codex" "$test_repo:pi"
	# the arm64 init in an arm64 container under qemu-user (binfmt_misc registered by the
	# test and removed after): --version, the dry run's ruleset the amd64 init's, and
	# starts that fail closed where qemu-user cannot program netlink or seccomp
	step image-release-arm64 env CLI_SANDBOX_AMD64_INIT="$OUT/release/cli-sandbox-init" \
		timeout 3600 sh tests/release/arm64_image.sh
fi

summary
[ -z "$failed" ]
