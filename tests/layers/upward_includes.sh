#!/bin/sh
# upward_includes.sh BUILD_DIR SOURCE_DIR PROBE:EXPECT:HEADER...
# Builds each include probe of tests/layers/CMakeLists.txt: "fail" probes
# must stop on the header being invisible (not on anything else), "pass"
# probes must compile.  Then checks that no source dodges the include paths
# with a relative "../" include.
set -u
. "$(cd "$(dirname "$0")/.." && pwd)/lib/tap.sh"
build=$1
src=$2
shift 2
out=$(mktemp)
trap 'rm -f "$out"' EXIT

for probe in "$@"; do
	name=${probe%%:*}
	rest=${probe#*:}
	expect=${rest%%:*}
	header=${rest#*:}
	cmake --build "$build" --target "$name" >"$out" 2>&1
	rc=$?
	if [ "$expect" = pass ]; then
		ok "$name compiles" [ "$rc" -eq 0 ]
	else
		# gcc: "x.h: No such file or directory"; clang: "'x.h' file not found"
		ok "$name fails: $header is not on its include path" \
			grep -Eq "$header'?: No such file or directory|'$header' file not found" "$out"
	fi
done
ok "no source includes through a relative ../ path" \
	sh -c "! grep -rnE '#[[:space:]]*include[[:space:]]*\"\\.\\./' '$src/base' '$src/profiles' '$src/netfilter' '$src/caps' '$src/entrypoint' '$src/tests'"
t_done
