#!/bin/sh
# Tests for host/lib/protect.sh and cli-sandbox-ctl protect with a fake docker on PATH (no engine runs): the read-only mounts
# a run adds over what host tools execute, the placeholders (made only on a real run, gone at its
# end), links refused, --allow-host-writes, and the run directories' random names (a local uid
# 65534 taking the old and the new names first stops no run). TAP (tests/lib/tap.sh).
# Usage: sh tests/host/protect.sh   (run by tests/host/run.sh; the 65534 check needs root)
set -u
unset CDPATH
repo=$(cd -P -- "$(dirname -- "$0")/../.." && pwd -P) || exit 1
CS=$repo/host/cli-sandbox
T=$(mktemp -d) || exit 1
chmod 755 "$T"
cleanup() { rm -rf -- "$T"; }
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
# shellcheck disable=SC1091  # tests/lib/tap.sh: the shared TAP helper
. "$repo/tests/lib/tap.sh"

# The fake engine: the run's arguments, one a line, in $T/args, and what the workspace and the
# state folder hold while it runs in $T/during.
mkdir -p "$T/bin" "$T/home" "$T/run" "$T/tmp" || exit 1
chmod 700 "$T/run"
# state CLI: the host folder a run mounts as CLI's state folder (root: the sandbox's own).
state() {
	if [ "$(id -u)" = 0 ]; then echo "$T/home/.config/cli-sandbox/state/$1"; else echo "$T/home/.$1"; fi
}
SC=$(state claude)
cat >"$T/bin/docker" <<'EOF'
#!/bin/sh
case " $* " in *" run "*) ;; *) exit 1 ;; esac
printf '%s\n' "$@" >"$FAKE_DIR/args"
{ cd "$FAKE_WS" && find . -path ./.git/objects -prune -o -print | sort
  cat .git/commondir 2>/dev/null; cat .claude/settings.json 2>/dev/null
  ls -ld "$FAKE_HOME"/settings.json "$FAKE_HOME"/commands 2>/dev/null | awk '{ print $1 }'
  for d in "${XDG_RUNTIME_DIR:-/dev/shm}"/cli-sandbox-credentials.*; do [ -O "$d" ] && ls -ld "$d" | awk '{ print "cred", $1 }' && echo "credname ${d##*/}"; done
} >"$FAKE_DIR/during" 2>&1
exit 0
EOF
chmod 755 "$T/bin/docker"
FAKE_DIR=$T FAKE_HOME=$SC
export FAKE_DIR FAKE_HOME
# cs WS ARG...: host/cli-sandbox with the fake docker, in WS; output in $T/out, $T/err.
cs() {
	_ws=$1; shift
	(cd "$_ws" && FAKE_WS=$_ws HOME=$T/home CLI_SANDBOX_HOME=$T/home/.config/cli-sandbox TMPDIR=$T/tmp \
		PATH=$T/bin:$PATH CLI_SANDBOX_ENGINE=docker \
		XDG_RUNTIME_DIR=$T/run ANTHROPIC_API_KEY=sk-protect-test OPENAI_API_KEY=sk-protect-test GEMINI_API_KEY=sk-protect-test \
		sh "$CS" --keys-in --managed http://192.0.2.1:4000 "$@") </dev/null >"$T/out" 2>"$T/err"
	RC=$?
}
has() { grep -qxF -- "$1" "$T/args"; }
dry_has() { grep -qF -- "'$1'" "$T/out"; }
tree() { (cd "$1" && find . | sort; ls -la "$T/home") 2>/dev/null; }

git_q() { git -c user.name=t -c user.email=t@example.invalid -c protocol.file.allow=always -c init.defaultBranch=main "$@"; }
WS=$T/ws
mkdir -p "$T/up" && git_q init -q "$T/up/sub" && git_q -C "$T/up/sub" commit -q --allow-empty -m s
git_q init -q "$WS" && echo f >"$WS/f" && git_q -C "$WS" add f && git_q -C "$WS" commit -q -m f
git_q -C "$WS" submodule add -q "$T/up/sub" sub >/dev/null 2>&1 && git_q -C "$WS" commit -q -m sub
git_q -C "$WS" worktree add -q "$WS/wt" 2>/dev/null
mkdir -p "$WS/.vscode" && echo '{}' >"$WS/.vscode/settings.json"
if [ ! -f "$WS/sub/.git" ] || [ ! -f "$WS/wt/.git" ]; then echo "Bail out! cannot make the test repository"; exit 1; fi

# ---------------------------------------------------------------- dry run
before=$(tree "$WS")
cs "$WS" --dry-run
t_ok() { if "$@"; then t_pass "$D"; else t_fail "$D"; fi; }
D="--dry-run exits 0"; t_ok [ "$RC" = 0 ]
for m in "$WS/.git:/workspace/.git" "$WS/.git/config:/workspace/.git/config:ro" \
	"$WS/.git/hooks:/workspace/.git/hooks:ro" "$WS/.git/info:/workspace/.git/info:ro" \
	"$WS/.git/config.worktree:/workspace/.git/config.worktree:ro" "$WS/.git/commondir:/workspace/.git/commondir:ro" \
	"$WS/.git/modules:/workspace/.git/modules:ro" "$WS/.git/modules/sub:/workspace/.git/modules/sub" \
	"$WS/.git/modules/sub/config:/workspace/.git/modules/sub/config:ro" "$WS/.git/modules/sub/hooks:/workspace/.git/modules/sub/hooks:ro" \
	"$WS/sub:/workspace/sub" "$WS/sub/.git:/workspace/sub/.git:ro" \
	"$WS/.git/worktrees/wt:/workspace/.git/worktrees/wt" "$WS/.git/worktrees/wt/commondir:/workspace/.git/worktrees/wt/commondir:ro" \
	"$WS/wt/.git:/workspace/wt/.git:ro" \
	"$WS/.gitmodules:/workspace/.gitmodules:ro" "$WS/.gitattributes:/workspace/.gitattributes:ro" \
	"$WS/.vscode:/workspace/.vscode:ro" "$WS/.idea:/workspace/.idea:ro" "$WS/.envrc:/workspace/.envrc:ro" \
	"$WS/.mcp.json:/workspace/.mcp.json:ro" "$WS/.claude:/workspace/.claude" \
	"$WS/.claude/settings.json:/workspace/.claude/settings.json:ro" "$WS/.claude/commands:/workspace/.claude/commands:ro" \
	"$WS/.claude/agents:/workspace/.claude/agents:ro" "$WS/.claude/hooks:/workspace/.claude/hooks:ro" \
	"$SC/settings.json:/home/node/.claude/settings.json:ro" \
	"$SC/settings.local.json:/home/node/.claude/settings.local.json:ro" \
	"$SC/CLAUDE.md:/home/node/.claude/CLAUDE.md:ro" "$SC/commands:/home/node/.claude/commands:ro" \
	"$SC/agents:/home/node/.claude/agents:ro" "$SC/hooks:/home/node/.claude/hooks:ro"; do
	D="--dry-run shows the mount $m"; t_ok dry_has "$m"
done
D="--dry-run shows the git excludes' mount with its random part as RANDOM"
t_ok dry_has "$T/tmp/cli-sandbox-protect.RANDOM/exclude:/run/cli-sandbox-protect/exclude:ro"
D="--dry-run creates and changes nothing (workspace, home)"; t_ok [ "$before" = "$(tree "$WS")" ]

# ---------------------------------------------------------------- each CLI's state folder
cs "$WS" --dry-run codex
D="codex: config.toml is the sandbox's own copy (codex writes its trust there), read-write"
t_ok dry_has "$T/home/.config/cli-sandbox/sandbox-own/codex/config.toml:/home/node/.codex/config.toml"
cs "$WS" --dry-run pi
D="pi: agent/ a mount point, its settings.json and extensions/ read-only"
SP=$(state pi)
pi_ok() { dry_has "$SP/agent:/home/node/.pi/agent" && dry_has "$SP/agent/settings.json:/home/node/.pi/agent/settings.json:ro" &&
	dry_has "$SP/agent/extensions:/home/node/.pi/agent/extensions:ro"; }
t_ok pi_ok
cs "$WS" --dry-run gemini
D="gemini: settings.json, extensions/ and commands/ read-only"
t_ok sh -c 'grep -qF "/home/node/.gemini/settings.json:ro" "$1" && grep -qF "/home/node/.gemini/extensions:ro" "$1" && grep -qF "/home/node/.gemini/commands:ro" "$1"' sh "$T/out"
cs "$WS" --dry-run opencode
D="opencode: nothing of its state folder (its config, ~/.config/opencode, is not mounted)"
t_ok sh -c '! grep -q "/home/node/.local/share/opencode/" "$1"' sh "$T/out"

# ---------------------------------------------------------------- --allow-host-writes
cs "$WS" --dry-run --allow-host-writes
D="--allow-host-writes: no protection mount"; t_ok sh -c '! grep -q ":/workspace/\|/home/node/.claude/" "$1"' sh "$T/out"
D="--allow-host-writes: a warning line"; t_ok grep -q '^cli-sandbox: warning: --allow-host-writes: ' "$T/err"

# ---------------------------------------------------------------- a real run (fake engine)
cfg=$(cksum <"$WS/.git/config")
cs "$WS"
D="a real run exits 0"; t_ok [ "$RC" = 0 ]
D="... the engine got the same mounts (e.g. .git/hooks read-only)"; t_ok has "$WS/.git/hooks:/workspace/.git/hooks:ro"
D="... while it runs, placeholders for what was absent: .envrc, .claude/commands, .idea"
t_ok sh -c 'grep -qx ./.envrc "$1" && grep -qx ./.claude/commands "$1" && grep -qx ./.idea "$1"' sh "$T/during"
D="... .git/commondir's placeholder says '.', .claude/settings.json's '{}'"
t_ok sh -c 'grep -qx "\." "$1" && grep -qx "{}" "$1"' sh "$T/during"
D="... the state folder's placeholders: settings.json a file, commands/ a folder"
t_ok sh -c 'grep -q "^-" "$1" && grep -q "^d" "$1"' sh "$T/during"
D="... afterwards the placeholders stay as made (another run may hold them), what was there stays too"
t_ok sh -c 'test -f "$1/.envrc" && test ! -s "$1/.envrc" && test -d "$1/.idea" && test -d "$2/commands" && test -s "$1/.vscode/settings.json"' sh "$WS" "$SC"
D="... .git/config unchanged"; t_ok [ "$cfg" = "$(cksum <"$WS/.git/config")" ]
D="... the git excludes' private directory is gone"; t_ok sh -c '! ls -d "$1"/cli-sandbox-protect.* 2>/dev/null | grep -q .' sh "$T/tmp"

# ---------------------------------------------------------------- links
rmdir "$WS/.idea" && ln -s /etc "$WS/.idea"  # the placeholder of the run above stays
rm -f "$T/args"
cs "$WS"
D="a link at a protected path (.idea -> /etc) stops the run, naming it"; t_ok sh -c '[ "$1" = 2 ] && grep -q "\.idea is a symbolic link" "$2"' sh "$RC" "$T/err"
D="... and the engine did not run"; t_ok [ ! -e "$T/args" ]
rm -f "$WS/.idea" "$T/args"
cs "$WS" --allow-host-writes
D="... --allow-host-writes runs it"; t_ok [ "$RC" = 0 ]

# ---------------------------------------------------------------- not a repository; a .git file
mkdir -p "$T/plain"
cs "$T/plain" --dry-run
D="not a repository: an empty read-only .git, so the agent cannot make one"; t_ok dry_has "$T/plain/.git:/workspace/.git:ro"
cs "$WS/wt" --dry-run
D="a linked worktree whose git directory is outside: its .git file read-only"; t_ok dry_has "$WS/wt/.git:/workspace/.git:ro"
D="... and nothing of the outside git directory mounted"; t_ok sh -c '! grep -q "worktrees/wt/config" "$1"' sh "$T/out"

# ---------------------------------------------------------------- random run directories
# The private directories are the program's (protect's and credentials' own, private_dir.h): a
# name taken five times over is tests/hostctl/test_hostctl_protect.c's (its random source held
# still); here the runner's, with the old names and the literal new ones taken first.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1 && [ -w /dev/shm ]; then
	# uid 65534 takes the old names (the next PIDs) and the literal new ones first.
	n=$$
	setpriv --reuid=65534 --regid=65534 --clear-groups -- sh -c '
		i=0; while [ $i -lt 300 ]; do mkdir -p /dev/shm/cli-sandbox-credentials.$(($1 + i)) /dev/shm/cli-sandbox-gateway.$(($1 + i)); i=$((i + 1)); done
		mkdir -p /dev/shm/cli-sandbox-credentials.RANDOM /dev/shm/cli-sandbox-gateway.RANDOM' sh "$n"
	(cd "$WS" && FAKE_WS=$WS HOME=$T/home PATH=$T/bin:$PATH XDG_RUNTIME_DIR='' ANTHROPIC_API_KEY=sk-protect-test \
		sh "$CS" --keys-in --engine docker --managed http://192.0.2.1:4000) </dev/null >"$T/out" 2>"$T/err"
	RC=$?
	D="uid 65534 made 300 old names and the new ones' RANDOM first: the run still starts"; t_ok [ "$RC" = 0 ]
	D="... its credentials directory is mode 700, named with 16 random hex digits"
	t_ok sh -c 'grep -qx "cred drwx------" "$1" && grep -qx "credname cli-sandbox-credentials.[0-9a-f]\{16\}" "$1"' sh "$T/during"
	# This run's own directory, by the name it had (another run on this machine may have one).
	D="... and removed at the end"; t_ok sh -c 'n=$(sed -n "s/^credname //p" "$1") && [ -n "$n" ] || exit 1; for d in $n; do [ ! -e "/dev/shm/$d" ] || exit 1; done' sh "$T/during"
	setpriv --reuid=65534 --regid=65534 --clear-groups -- sh -c '
		i=0; while [ $i -lt 300 ]; do rmdir /dev/shm/cli-sandbox-credentials.$(($1 + i)) /dev/shm/cli-sandbox-gateway.$(($1 + i)); i=$((i + 1)); done
		rmdir /dev/shm/cli-sandbox-credentials.RANDOM /dev/shm/cli-sandbox-gateway.RANDOM' sh "$n" 2>/dev/null
else
	t_skip "uid 65534 taking the names first: needs root, setpriv and a writable /dev/shm"
fi

# ---------------------------------------------------------------- shellcheck
if command -v shellcheck >/dev/null 2>&1; then
	D="shellcheck -s sh host/lib/protect.sh finds nothing"
	t_ok [ -z "$(shellcheck -s sh "$repo/host/lib/protect.sh" 2>&1)" ]
else
	t_fail "shellcheck is installed (apt-get install shellcheck)"
fi
t_done
