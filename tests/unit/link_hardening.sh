#!/bin/sh
# Link hardening (issue 11, point 9): the init is position-independent
# (PIE, or static-pie for the static build) with full RELRO: a read-only
# GOT after start-up (-z relro -z now).  Before the fix the binary had
# partial RELRO only (no BIND_NOW).
#
# usage: link_hardening.sh PATH-TO-cli-sandbox-init
set -u
BIN=$1
. "$(cd "$(dirname "$0")/.." && pwd)/lib/tap.sh"
command -v readelf > /dev/null || { echo "skip: needs readelf (binutils)"; exit 77; }

readelf -hW "$BIN" > /tmp/cs-link-h.$$ 2>&1
readelf -lW "$BIN" > /tmp/cs-link-l.$$ 2>&1
readelf -dW "$BIN" > /tmp/cs-link-d.$$ 2>&1
trap 'rm -f /tmp/cs-link-h.$$ /tmp/cs-link-l.$$ /tmp/cs-link-d.$$' EXIT
sed -n 's/^ *Type: */# type: /p' /tmp/cs-link-h.$$
grep -E 'FLAGS' /tmp/cs-link-d.$$ | sed 's/^/# /'

ok "the init is position-independent (ELF type DYN)" grep -q 'Type:[[:space:]]*DYN' /tmp/cs-link-h.$$
ok "it has a PT_GNU_RELRO segment" grep -q 'GNU_RELRO' /tmp/cs-link-l.$$
ok "it binds every symbol at start (BIND_NOW: full RELRO)" \
	sh -c "grep -q 'BIND_NOW' /tmp/cs-link-d.$$ || grep -q 'FLAGS_1.*NOW' /tmp/cs-link-d.$$"
ok "its stack is not executable (PT_GNU_STACK RW)" sh -c "grep 'GNU_STACK' /tmp/cs-link-l.$$ | grep -q 'RW '"
if grep -q 'INTERP' /tmp/cs-link-l.$$; then
	echo "# dynamically linked (the static build is checked the same way in the image build)"
else
	ok "static: static-pie (FLAGS_1 PIE)" grep -q 'FLAGS_1.*PIE' /tmp/cs-link-d.$$
fi
t_done
