#!/bin/sh
# Trusted inputs only (issue 11, finding 4): CLI_SANDBOX_PROFILE_DIR and every
# file read from it must be owned by root and not writable by group or
# others, with no symlink on the path that root does not own (the checks of
# sudo and OpenSSH; a root-owned sticky directory such as /tmp may sit above
# it).  Otherwise the start stops with 78 and one line naming the path.  The
# attack: a world-writable directory whose github-meta.json widens the
# interactive allowlist to 10/8 and 172.16/12.  Before the fix every case
# below started (and the dry-run allowed 10.0.0.0/8).  Root only (chown).
#
# usage: trusted_inputs.sh PATH-TO-cli-sandbox-init
set -u
INIT=$1
. "$(cd "$(dirname "$0")/.." && pwd)/lib/tap.sh"
if [ "$(id -u)" != 0 ]; then echo "skip: needs root"; exit 77; fi
command -v ip > /dev/null || { echo "skip: needs ip"; exit 77; }

T=$(mktemp -d /tmp/cs-trust.XXXXXX) || exit 1
NS=cs-trust-$$
cleanup() {
	ip netns delete "$NS" 2> /dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
chmod 755 "$T"
U=$(t_free_id 54321)
# An empty network namespace: names fail to resolve at once, no packet leaves.
ip netns add "$NS" || { echo "not ok - ip netns add"; exit 1; }

EVIL='{ "web": ["10.0.0.0/8", "172.16.0.0/12"], "api": [], "git": [] }'
mkprof() {  # mkprof DIR: a profile directory with the widening range file
	mkdir -p "$1"
	chmod 755 "$1"
	echo "$EVIL" > "$1/github-meta.json"
	chmod 644 "$1/github-meta.json"
}
run() {  # run NAME DIR: a dry-run of the interactive profile with that directory
	ip netns exec "$NS" env -i PATH=/usr/local/bin:/usr/bin:/bin ${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} \
		CLI_SANDBOX_EGRESS_PROFILE=interactive CLI_SANDBOX_USER="$U:$U" CLI_SANDBOX_PROFILE_DIR="$2" \
		"$INIT" --dry-run -- claude > "$T/$1.out" 2> "$T/$1.err"
	echo $? > "$T/$1.rc"
	grep 'error:' "$T/$1.err" | sed "s/^/# $1: /"
}
rc() { cat "$T/$1.rc"; }
refused() {  # refused NAME PATH-NAMED
	ok "$1: 78" [ "$(rc "$1")" = 78 ]
	ok "$1: one error line naming $2" sh -c "[ \"\$(grep -c 'error:' '$T/$1.err')\" = 1 ] && grep -qF -- '$2' '$T/$1.err'"
	ok "$1: nothing was printed to load" [ ! -s "$T/$1.out" ]
}

# Trusted: root-owned 0755 directory, 0644 file, below /tmp (root, sticky).
mkprof "$T/good"
run good "$T/good"
ok "good: a root-owned directory is used (exit 0)" [ "$(rc good)" = 0 ]
ok "good: its ranges are in the ruleset (the control case)" grep -q '10.0.0.0/8' "$T/good.out"

# World-writable: the red team's case.
mkprof "$T/world"
chmod 777 "$T/world"
run world "$T/world"
refused world "$T/world"

mkprof "$T/group"
chmod 775 "$T/group"
run group "$T/group"
refused group "$T/group"

mkprof "$T/owned"
chown "$U" "$T/owned"
run owned "$T/owned"
refused owned "$T/owned"

mkprof "$T/file-owned"
chown "$U" "$T/file-owned/github-meta.json"
run file-owned "$T/file-owned"
refused file-owned "$T/file-owned/github-meta.json"

mkprof "$T/file-ww"
chmod 666 "$T/file-ww/github-meta.json"
run file-ww "$T/file-ww"
refused file-ww "$T/file-ww/github-meta.json"

mkprof "$T/override"
echo '{ "version": 1, "common": { "domains": [ { "name": "example.test", "ports": [443] } ] }, "clis": {} }' > "$T/override/interactive.json"
chmod 664 "$T/override/interactive.json"
run override "$T/override"
refused override "$T/override/interactive.json"

# Ancestors: a world-writable one without the sticky bit is not trusted.
mkdir "$T/ww"
chmod 777 "$T/ww"
mkprof "$T/ww/prof"
run ancestor "$T/ww/prof"
refused ancestor "$T/ww"

# Symlinks: root's may lead to a trusted directory; a user's never.
ln -s "$T/good" "$T/root-link"
run root-link "$T/root-link"
ok "root-link: a root-owned symlink to a trusted directory is used (exit 0)" [ "$(rc root-link)" = 0 ]
ln -s "$T/good" "$T/user-link"
chown -h "$U" "$T/user-link"
run user-link "$T/user-link"
refused user-link "$T/user-link"
ln -s "$T/world" "$T/link-to-world"
run link-to-world "$T/link-to-world"
refused link-to-world "$T/world"
mkprof "$T/file-link"
rm "$T/file-link/github-meta.json"
echo "$EVIL" > "$T/evil.json"
chmod 644 "$T/evil.json"
ln -s "$T/evil.json" "$T/file-link/github-meta.json"
chown -h "$U" "$T/file-link/github-meta.json"
run file-link "$T/file-link"
refused file-link "$T/file-link/github-meta.json"

# A directory that does not exist is no trust problem: missing files warn.
run missing "$T/does-not-exist"
ok "missing: a missing directory still starts (exit 0)" [ "$(rc missing)" = 0 ]
ok "missing: and says the range files are missing" grep -q 'github-meta.json is missing' "$T/missing.err"
t_done
