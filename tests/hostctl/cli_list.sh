#!/bin/sh
# cli_list.sh REPO: one list of CLIs (issue 32). base/cli_names.c is the list (the init's
# table is held to it by tests/unit/test_clis.c, and cli-sandbox-ctl reads it); every other
# place that names the CLIs must name the same ones, in the same order where it has one: the
# runner's CLI_NAMES, image/build.sh's --cli words, image/check-image.sh's versions, the
# Dockerfile's per-CLI targets and their npm stages, and the signing policy's per-CLI copies.
set -u
# shellcheck disable=SC1091  # tests/lib/tap.sh: the shared TAP helper
. "$(cd "$(dirname "$0")/.." && pwd)/lib/tap.sh"
repo=$1
words() { tr '\n' ' ' | sed 's/ *$//'; }

want=$(sed -n 's/^	{ "\([a-z]*\)", {.*/\1/p' "$repo/base/cli_names.c" | words)
ok "base/cli_names.c lists the CLIs ($want)" [ -n "$want" ]
same() {  # same WHAT LIST: LIST is the list
	if [ "$2" = "$want" ]; then t_pass "$1 names the same CLIs"; else t_fail "$1 names the same CLIs" "want: $want
got:  $2"; fi
}
same "host/cli-sandbox's CLI_NAMES" "$(sed -n "s/^CLI_NAMES='\\([a-z ]*\\)'$/\\1/p" "$repo/host/cli-sandbox")"
# shellcheck disable=SC2016 # $REPO and $cli are build.sh's own text
same "image/build.sh's --cli words" "$(sed -n 's/^	\([a-z |]*\)) name=\$REPO:\$cli ;;$/\1/p' "$repo/image/build.sh" | tr -d '|' | tr -s ' ' '\n' | words)"
same "image/check-image.sh's versions" "$(sed -n "s/^want_claude=.*/&/p" "$repo/image/check-image.sh" | tr ' ' '\n' | sed -n "s/^want_\([a-z]*\)=''$/\1/p" | words)"
same "the Dockerfile's per-CLI targets" "$(sed -n 's/^FROM toolset AS \([a-z]*\)$/\1/p' "$repo/Dockerfile" | grep -vx all | words)"
same "the Dockerfile's npm stages" "$(sed -n 's/^FROM npm AS npm-\([a-z]*\)$/\1/p' "$repo/Dockerfile" | grep -vx gateway | words)"
# The signing policy signs one copy per CLI image (beside latest, the gateway and the broker).
same "deploy/signing/policy.json's per-CLI copies" "$(sed -n 's|^ *"/var/lib/cli-sandbox/release/cli-sandbox/\([a-z]*\)": \[$|\1|p' "$repo/deploy/signing/policy.json" | grep -vx latest | words)"
t_done
