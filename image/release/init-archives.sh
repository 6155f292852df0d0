#!/bin/sh
# Run in the Dockerfile's build stage after the init is linked (issue 24):
# lists every static archive the link used, with the Debian package that
# ships it and that package's exact version, for the SBOM
# (image/release/spdx.py).  The archives are those of CMake's link line
# (pkg-config's --static libraries) plus the ones gcc adds itself for a
# static-pie (libc.a, libgcc.a, libgcc_eh.a).
#
#   sh init-archives.sh BUILD-DIR > init-archives.tsv
# Output: archive path <TAB> package:arch <TAB> version <TAB> use, one line
# each; use is "linked" (in the init) or "generator" (linked into the build-time
# generator of the seccomp filter, caps/sandbox_filter_gen: libseccomp, whose
# output, not code, is in the init).
set -eu
build=$1
archives() {  # archives LINK.TXT: the system archives of one link line
	[ -s "$1" ] || { echo "init-archives.sh: no link line at $1" >&2; exit 1; }
	tr ' ' '\n' <"$1" | grep '^/.*\.a$' | grep -v "^$build/" || true
}
link=$build/entrypoint/CMakeFiles/cli-sandbox-init.dir/link.txt
cc=$(cut -d' ' -f1 "$link")
{
	archives "$link" | sed 's/$/ linked/'
	if grep -q -- '-static' "$link"; then
		for a in libc.a libgcc.a libgcc_eh.a; do echo "$("$cc" -print-file-name="$a") linked"; done
	fi
	archives "$build/caps/CMakeFiles/sandbox_filter_gen.dir/link.txt" | grep seccomp | sed 's/$/ generator/'
} | while read -r archive use; do
	real=$(readlink -f "$archive")
	[ -f "$real" ] || { echo "init-archives.sh: $archive is not a file" >&2; exit 1; }
	pkg=$(dpkg -S "$real" 2>/dev/null | head -1 | sed "s/: .*//") || pkg=""
	[ -n "$pkg" ] || { echo "init-archives.sh: no package ships $real" >&2; exit 1; }
	# dpkg -S names Architecture: all packages (the cross toolchain's) without one.
	case $pkg in *:*) ;; *) pkg=$pkg:$(dpkg-query -W -f '${Architecture}' "$pkg") ;; esac
	printf '%s\t%s\t%s\t%s\n' "$real" "$pkg" "$(dpkg-query -W -f '${Version}' "$pkg")" "$use"
done | sort -u
