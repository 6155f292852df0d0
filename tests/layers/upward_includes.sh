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
# A path that climbs anywhere ("../x.h", "base/../netfilter/model.h",
# "./x.h") would reach past the one folder link a layer sees.
ok "no source includes a path that climbs (a ../ or ./ component anywhere)" \
	sh -c "! grep -rnE '#[[:space:]]*include[[:space:]]*[\"<]([^\">]*/)?\\.\\.?/' '$src/base' '$src/profiles' '$src/netfilter' '$src/caps' '$src/entrypoint' '$src/hostctl' '$src/resolver' '$src/tests'"
# No two modules include each other (a module is NAME.c with NAME.h): every
# project include is an edge "includer-module included-module", and an edge
# whose reverse is there too is a circle.
edges=$(mktemp)
find "$src/base" "$src/profiles" "$src/netfilter" "$src/caps" "$src/entrypoint" "$src/hostctl" "$src/resolver" -name '*.[ch]' | while read -r f; do
	from=${f#"$src/"}
	from=${from%.*}
	sed -n 's/^#[[:space:]]*include[[:space:]]*"\([a-z_/]*\)\.h".*/\1/p' "$f" |
		while read -r to; do [ "$to" = "$from" ] || echo "$from $to"; done
done | sort -u > "$edges"
circles=$(awk '{ e[$1 " " $2] = 1 } END { for (k in e) { split(k, a, " "); if ((a[2] " " a[1]) in e && a[1] < a[2]) print a[1] " <-> " a[2] } }' "$edges")
if [ -z "$circles" ]; then
	t_pass "no two modules include each other ($(wc -l < "$edges") include edges)"
else
	t_fail "modules that include each other" "$circles"
fi
rm -f "$edges"
t_done
