#!/bin/sh
# Run in the Dockerfile's build stage after the init is linked (issue 24):
# lists every static archive the link used, with the Debian package that
# ships it and that package's exact version, for the SBOM
# (image/release/spdx.py).  The archives are those of CMake's link line
# (pkg-config's --static libraries) plus the ones gcc adds itself for a
# static-pie (libc.a, libgcc.a, libgcc_eh.a).
#
#   sh init-archives.sh BUILD-DIR > init-archives.tsv
# Output: archive path <TAB> package:arch <TAB> version, one line each.
set -eu
build=$1
link=$build/entrypoint/CMakeFiles/cli-sandbox-init.dir/link.txt
[ -s "$link" ] || { echo "init-archives.sh: no link line at $link" >&2; exit 1; }
cc=$(cut -d' ' -f1 "$link")
{
	tr ' ' '\n' <"$link" | grep '^/.*\.a$' | grep -v "^$build/" || true
	if grep -q -- '-static' "$link"; then
		for a in libc.a libgcc.a libgcc_eh.a; do "$cc" -print-file-name="$a"; done
	fi
} | while read -r archive; do
	real=$(readlink -f "$archive")
	[ -f "$real" ] || { echo "init-archives.sh: $archive is not a file" >&2; exit 1; }
	pkg=$(dpkg -S "$real" 2>/dev/null | head -1 | sed "s/: .*//") && [ -n "$pkg" ] ||
		{ echo "init-archives.sh: no package ships $real" >&2; exit 1; }
	case $pkg in *:*) ;; *) pkg=$pkg:$(dpkg --print-architecture) ;; esac
	printf '%s\t%s\t%s\n' "$real" "$pkg" "$(dpkg-query -W -f '${Version}' "$pkg")"
done | sort -u
