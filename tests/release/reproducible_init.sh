#!/bin/sh
# A reproducible init (issue 24, docs/release.md): the same sources built in
# two clean directories of different paths and lengths give byte-identical
# binaries, with no build path inside, a content-derived build ID, and a
# --version that names the commit and the libraries pkg-config found.
#
#   sh tests/release/reproducible_init.sh [CMAKE-ARGS...]
#
# Debian 12 has no libmnl.a, so here both builds link dynamically; the
# image's static build on Debian 13 is compared by tests/release/image.sh.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/lib/tap.sh"

WORK=$(mktemp -d /tmp/cs-repro.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
COMMIT=0123456789abcdef0123456789abcdef01234567
# Sources as tracked by git (with the working tree's changes), else the tree
# without build output.
copy_sources() {
	mkdir -p "$1"
	if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
		(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard |
			xargs -0 -I{} sh -c '[ -e "{}" ] && printf "%s\0" "{}"' |
			tar --null -T - -cf -) | tar -C "$1" -xf -
	else
		(cd "$ROOT" && tar --exclude='./build*' -cf - .) | tar -C "$1" -xf -
	fi
}
build() {  # build SRC BUILD: configure and build the init only
	cmake -S "$1" -B "$2" -DCLI_SANDBOX_TESTS=OFF -DCLI_SANDBOX_WERROR=ON \
		-DCLI_SANDBOX_COMMIT="$COMMIT" "$@" >"$2.log" 2>&1 &&
		cmake --build "$2" -j 2 >>"$2.log" 2>&1
}
A_SRC=$WORK/a/src A_BUILD=$WORK/a/build
B_SRC=$WORK/second-tree/with/a/longer/path/src B_BUILD=$WORK/b-build
copy_sources "$A_SRC"
copy_sources "$B_SRC"
export SOURCE_DATE_EPOCH=1700000000
if build "$A_SRC" "$A_BUILD" "$@"; then t_pass "first build in $A_BUILD"; else t_fail "first build" "$(tail -20 "$A_BUILD.log")"; fi
# The second one a day later, as a rebuild would be: SOURCE_DATE_EPOCH
# comes from the commit, so it is the same; the clock is not.
if build "$B_SRC" "$B_BUILD" "$@"; then t_pass "second build in $B_BUILD"; else t_fail "second build" "$(tail -20 "$B_BUILD.log")"; fi
A=$A_BUILD/cli-sandbox-init B=$B_BUILD/cli-sandbox-init

if cmp "$A" "$B" >"$WORK/cmp" 2>&1; then
	t_pass "the two binaries are byte-identical ($(sha256sum <"$A" | cut -c1-16)...)"
else
	t_fail "the two binaries differ" "$(cat "$WORK/cmp"; cmp -l "$A" "$B" 2>/dev/null | wc -l) bytes differ"
fi
found=$(grep -c -a -e "$WORK" -e "$ROOT" "$A" || true)
if [ "$found" = 0 ]; then t_pass "no build or source path in the binary"; else t_fail "a build path is in the binary" "$(strings -a "$A" | grep -e "$WORK" -e "$ROOT" | head -5)"; fi
if readelf -nW "$A" | grep -Eq 'Build ID: [0-9a-f]{40}$'; then
	t_pass "a 160-bit (sha1, content-derived) build ID"
else
	t_fail "no sha1 build ID" "$(readelf -nW "$A" | grep -i 'build id')"
fi

"$A" --version >"$WORK/version" 2>&1
if head -1 "$WORK/version" | grep -Eq '^cli-sandbox-init [0-9]+\.[0-9]+\.[0-9]+$'; then
	t_pass "--version's first line is unchanged: $(head -1 "$WORK/version")"
else
	t_fail "--version's first line" "$(cat "$WORK/version")"
fi
if grep -qx "commit $COMMIT" "$WORK/version"; then t_pass "--version names the commit"; else t_fail "--version does not name the commit" "$(cat "$WORK/version")"; fi
for name in libnftnl libmnl libcap-ng libseccomp jansson; do
	want=$(pkg-config --modversion "$name")
	if grep -Eq "^$name $want( \(|$)" "$WORK/version"; then
		t_pass "--version: $name $want (pkg-config's)"
	else
		t_fail "--version: $name is not $want" "$(cat "$WORK/version")"
	fi
done
libc=$(getconf GNU_LIBC_VERSION | cut -d' ' -f2)
if grep -qx "glibc $libc (built against $libc)" "$WORK/version"; then
	t_pass "--version: glibc $libc"
else
	t_fail "--version: glibc is not $libc" "$(cat "$WORK/version")"
fi
t_done
