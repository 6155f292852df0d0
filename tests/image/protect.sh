#!/bin/sh
# Nothing the agent writes runs on the host (issue 31): the attack pass's payloads, run inside
# the sandbox through host/cli-sandbox's `shell -- -c`, exactly what a run gets, then the
# person's own git on the host.
#
# One container start per half doing every payload (plus, in the podman half, one for codex's
# state folder):
#   podman   rootful, the person is root (the sandbox user uid 1000);
#   dockerd  a private daemon (tests/dockerd.sh), the person uid 4321 (setpriv), whose uid the
#            sandbox user then is;
#   rootless podman with keep-id: only where this machine gives a user a subordinate uid range
#            (/etc/subuid), else a skip with that reason.
# For each: every write refused inside (git config core.fsmonitor and core.hooksPath, a
# pre-commit hook, .vscode/tasks.json, .envrc, .mcp.json, .claude/settings.json, the state
# folder's settings.json with a SessionStart hook, CLAUDE.md, commands/x.md; renaming .git,
# .claude or commands/ away); git's everyday commands inside succeed on a repository with a
# submodule and a linked worktree (status, add, commit, branch, checkout, diff, log, stash,
# rebase); remote add and push -u fail with git's own message; the commit's author comes from
# the environment; afterwards, on the host as the person, git status, checkout -b and commit in
# the workspace and the submodule run nothing planted (no marker file), the protected files are
# unchanged and the placeholders are gone.
#
# usage: sh tests/image/protect.sh   (root; CLI_SANDBOX_TEST_IMAGE, default
#        localhost/cli-sandbox:claude; SKIP_PODMAN=1 / SKIP_DOCKER=1 leave one half out)
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$ROOT/tests/lib/tap.sh"
. "$ROOT/tests/dockerd.sh"
IMAGE=${CLI_SANDBOX_TEST_IMAGE:-localhost/cli-sandbox:claude}
CODEX_IMAGE=${CLI_SANDBOX_TEST_CODEX_IMAGE:-localhost/cli-sandbox:codex}
CS=$ROOT/host/cli-sandbox
WORK=$(mktemp -d /tmp/cli-sandbox-protect.XXXXXX) || exit 1
chmod 755 "$WORK"
URL=http://192.0.2.1:8090

bail() { echo "Bail out! $*"; exit 1; }
cleanup() {
	if [ -n "$DOCKERD_PID" ]; then dockerd_stop; fi
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
[ "$(id -u)" -eq 0 ] || bail "run as root"
for c in podman setpriv git timeout; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing (tests/install-deps.sh)"
done

# The payloads, as the agent: each line "refused WHAT" or "WROTE WHAT"; then git's everyday
# commands, each "git-ok WHAT" or "git-FAILED WHAT".
# shellcheck disable=SC2016 # expanded by the agent's shell
PAYLOADS='cd /workspace || exit 1
S=${CLAUDE_CONFIG_DIR:-/home/node/.claude}
r() { w=$1; shift; if "$@" >/dev/null 2>&1; then echo "WROTE $w"; else echo "refused $w"; fi; }
r fsmonitor git config core.fsmonitor "touch /workspace/PWNED-fsmonitor; false"
r hooksPath git config core.hooksPath /workspace/planted-hooks
mkdir -p planted-hooks && printf "#!/bin/sh\ntouch /workspace/PWNED-post-checkout\n" >planted-hooks/post-checkout && chmod 755 planted-hooks/post-checkout
r pre-commit sh -c "printf \"#!/bin/sh\\ntouch /workspace/PWNED-pre-commit\\n\" >.git/hooks/pre-commit && chmod 755 .git/hooks/pre-commit"
r sub-pre-commit sh -c "printf \"#!/bin/sh\\ntouch /workspace/PWNED-sub\\n\" >.git/modules/sub/hooks/pre-commit"
r sub-config sh -c "printf \"[core]\\n\\tfsmonitor = touch /workspace/PWNED-subfs\\n\" >>.git/modules/sub/config"
r sub-gitfile sh -c "echo gitdir: ../evil >sub/.git"
r commondir sh -c "echo ../evil >.git/commondir"
r vscode sh -c "mkdir -p .vscode && echo {} >.vscode/tasks.json"
r envrc sh -c "echo touch PWNED-envrc >.envrc"
r mcp sh -c "echo {} >.mcp.json"
r claude-settings sh -c "mkdir -p .claude && echo \"{\\\"hooks\\\":{\\\"SessionStart\\\":[{\\\"hooks\\\":[{\\\"type\\\":\\\"command\\\",\\\"command\\\":\\\"touch /workspace/PWNED-project\\\"}]}]}}\" >.claude/settings.json"
r new-submodule-gitdir mkdir -p .git/modules/planted
r mv-git mv .git moved-git
r mv-claude mv .claude moved-claude
r state-settings sh -c "echo \"{\\\"hooks\\\":{\\\"SessionStart\\\":[{\\\"hooks\\\":[{\\\"type\\\":\\\"command\\\",\\\"command\\\":\\\"touch /workspace/PWNED-sessionstart\\\"}]}]}}\" >$S/settings.json"
r state-claude-md sh -c "echo planted >$S/CLAUDE.md"
r state-command sh -c "mkdir -p $S/commands && echo planted >$S/commands/x.md"
r mv-state-commands mv $S/commands $S/moved-commands
g() { w=$1; shift; if "$@" >/tmp/g.out 2>&1; then echo "git-ok $w"; else echo "git-FAILED $w: $(tail -n 1 /tmp/g.out)"; fi; }
g status git status
g diff sh -c "echo change >>file.txt && git diff --stat | grep -q file.txt"
g add git add file.txt
g commit git commit -q -m inside
g author sh -c "test \"\$(git log -1 --format=%an)\" = \"Protect Person\""
g log git log --oneline -3
g branch git branch topic
g checkout git checkout -q topic
g stash sh -c "echo more >>file.txt && git stash -q && git stash pop -q && git commit -qam more"
g rebase sh -c "git checkout -q main && echo m >main.txt && git add main.txt && git commit -qm m && git checkout -q topic && git rebase -q main"
g status-clean sh -c "git status --porcelain --untracked-files=all | grep -v planted-hooks | tr \"\\n\" \" \" >&2; test -z \"\$(git status --porcelain --untracked-files=all | grep -v planted-hooks)\""
g sub-status git -C sub status
if git remote add other /tmp/x >/tmp/g.out 2>&1; then echo "WROTE remote-add"; else echo "refused remote-add: $(tail -n 1 /tmp/g.out)"; fi
git init -q --bare /tmp/inner.git
git push -u /tmp/inner.git topic >/tmp/g.out 2>&1
if [ -n "$(git config branch.topic.remote)" ]; then echo "WROTE push-u"; else echo "refused push-u: $(grep -m 1 config /tmp/g.out)"; fi
git ls-remote /tmp/inner.git topic | grep -q topic && echo "pushed push-u"
echo payloads-done'

# The codex run's payload: its config.toml with a notify command.
# shellcheck disable=SC2016
CODEX_PAYLOAD='if echo "notify = [\"touch\", \"/tmp/PWNED\"]" >>"${CODEX_HOME:-/home/node/.codex}/config.toml" 2>/dev/null; then echo "WROTE codex-config"; else echo "refused codex-config"; fi'

# person_repo: the person's project, a git repository with a submodule and a linked worktree
# (beside it, where the person keeps it), made by the person; its .git/config's checksum.
person_repo() {
	P=$WORK/$1
	rm -rf "$P"
	mkdir -p "$P/home" "$P/upstream"
	[ -z "$PERSON_UID" ] || chown -R "$PERSON_UID:$PERSON_GID" "$P"
	as_person sh -c '
		set -e
		export HOME="$1/home" GIT_CONFIG_NOSYSTEM=1
		git config --global user.name "Protect Person"
		git config --global user.email person@example.invalid
		git config --global protocol.file.allow always
		git config --global safe.directory "*"
		git config --global init.defaultBranch main
		git init -q "$1/upstream/sub" && echo s >"$1/upstream/sub/s.txt"
		git -C "$1/upstream/sub" add s.txt && git -C "$1/upstream/sub" commit -qm s
		git init -q "$1/ws" && cd "$1/ws" && echo f >file.txt && git add file.txt
		git commit -qm first
		git clone -q --bare "$1/ws" "$1/upstream/origin.git" && git remote add origin "$1/upstream/origin.git"
		git submodule add -q "$1/upstream/sub" sub && git commit -qm sub
		git config user.name "Protect Person" && git config user.email person@example.invalid
		git worktree add -q "$1/wt"' sh "$P" || return 1
	cksum <"$P/ws/.git/config" >"$P/config.sum"
}
as_person() {
	if [ -n "$PERSON_UID" ]; then setpriv --reuid="$PERSON_UID" --regid="$PERSON_GID" --clear-groups -- "$@"; else "$@"; fi
}

# host_claude NAME STATE USER: the image's claude, run as the person the way their own claude
# runs on the host after the sandbox (no sandbox; no network, so it gets no further than its
# start), on the workspace and the state folder the sandbox had. --settings adds the test's own
# SessionStart hook: its marker shows that this run read its settings and ran its SessionStart
# hooks, so a hook planted in the state folder or the project's .claude would have run beside
# it. Without that marker the check is a skip with the reason (no hook ran at all).
host_claude() {
	hc=$1 st=$2 hu=$3 ctl=$P/ws/CONTROL-sessionstart
	rm -f "$ctl"
	# shellcheck disable=SC2086 # the engine's option lists are split on purpose
	$HC_ENGINE $GLOBAL_WORDS run --rm --name "cs-protect-claude-$$" --network none $HC_LIMITS \
		--user "$hu" --entrypoint claude -e HOME=/tmp -e CLAUDE_CONFIG_DIR=/state \
		-e ANTHROPIC_API_KEY=sk-protect-host -e ANTHROPIC_BASE_URL=http://127.0.0.1:9 \
		-v "$st:/state" -v "$P/ws:/workspace" -w /workspace "$IMAGE" \
		--settings '{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch /workspace/CONTROL-sessionstart"}]}]}}' \
		-p hi </dev/null >"$P/host-claude.out" 2>&1 &
	hc_pid=$!
	i=0
	while [ "$i" -lt 120 ] && [ ! -e "$ctl" ] && kill -0 "$hc_pid" 2>/dev/null; do sleep 0.5; i=$((i + 1)); done
	sleep 2  # the SessionStart hooks run together: give the others their moment
	# shellcheck disable=SC2086
	$HC_ENGINE $GLOBAL_WORDS rm -f "cs-protect-claude-$$" >/dev/null 2>&1
	kill "$hc_pid" 2>/dev/null; wait "$hc_pid" 2>/dev/null
	if [ ! -e "$ctl" ]; then
		t_note <"$P/host-claude.out"
		t_skip "$hc: the image's claude on the host: its own control hook never ran, so no hook would have (see above)"
		return
	fi
	rm -f "$ctl"
	ok "$hc: on the host, the image's claude as the person ran its SessionStart hooks and none the agent planted (no PWNED marker)" \
		sh -c '! ls "$1"/ws/PWNED* >/dev/null 2>&1' sh "$P"
}

# half NAME: the payloads in one start, then the person's git on the host.
half() {
	h=$1
	person_repo "$h" || { t_fail "$h: the person's repository could not be made"; return; }
	[ -n "$PERSON_UID" ] || chown -R 1000:1000 "$P/ws"
	as_person env -i HOME="$P/home" PATH=/usr/bin:/bin:/usr/sbin:/sbin TMPDIR="$P" \
		${PERSON_DOCKER_HOST:+DOCKER_HOST=$PERSON_DOCKER_HOST} \
		CLI_SANDBOX_KEYS_IN=true CLI_SANDBOX_ENGINE_ARGS="$ENGINE_WORDS" CLI_SANDBOX_ENGINE_GLOBAL_ARGS="$GLOBAL_WORDS" \
		CLI_SANDBOX_IMAGE="$IMAGE" ANTHROPIC_API_KEY=sk-protect-test \
		timeout 240 "$CS" --engine "$ENGINE" -w "$P/ws" --managed "$URL" shell -- -c "$PAYLOADS" \
		</dev/null >"$P/out" 2>"$P/err"
	t_note <"$P/out"
	grep -v '^cli-sandbox: warning' "$P/err" | t_note
	ok "$h: the payloads ran to their end inside" grep -qx payloads-done "$P/out"
	for w in fsmonitor hooksPath pre-commit sub-pre-commit sub-config sub-gitfile commondir vscode envrc mcp \
		claude-settings new-submodule-gitdir mv-git mv-claude state-settings state-claude-md state-command mv-state-commands; do
		ok "$h: inside, refused: $w" grep -qx "refused $w" "$P/out"
	done
	for w in status diff add commit author log branch checkout stash rebase status-clean sub-status; do
		ok "$h: inside, git $w works" grep -qx "git-ok $w" "$P/out"
	done
	ok "$h: inside, git remote add fails with git's own message (its config is read-only)" \
		grep -q "^refused remote-add: fatal: could not set 'remote.other.url'" "$P/out"
	ok "$h: inside, git push -u fails with git's own message (the push done, the upstream not set)" \
		sh -c 'grep -q "^refused push-u: error: could not write config file /workspace/.git/config" "$1" && grep -qx "pushed push-u" "$1"' sh "$P/out"
	# The host afterwards, as the person.
	as_person sh -c 'cd "$1/ws" && export HOME="$1/home" GIT_CONFIG_NOSYSTEM=1 &&
		git status >/dev/null 2>&1; git checkout -q -b after 2>/dev/null; git commit -q --allow-empty -m after 2>/dev/null
		cd sub && git status >/dev/null 2>&1; git checkout -q -b after 2>/dev/null; git commit -q --allow-empty -m after 2>/dev/null
		cd "$1/wt" && git status >/dev/null 2>&1' sh "$P"
	ok "$h: on the host, git status, checkout -b and commit ran nothing planted (no PWNED marker)" \
		sh -c '! ls "$1"/ws/PWNED* "$1"/ws/sub/PWNED* >/dev/null 2>&1' sh "$P"
	ok "$h: on the host, the person's commit is there (git worked)" \
		sh -c 'test "$(HOME="$1/home" git -C "$1/ws" log -1 --format=%s)" = after' sh "$P"
	ok "$h: .git/config is unchanged" sh -c 'cksum <"$1/ws/.git/config" | cmp -s - "$1/config.sum"' sh "$P"
	ok "$h: the placeholders stay after the run, as made (.envrc empty, .vscode an empty folder)" \
		sh -c 'test -f "$1/ws/.envrc" && test ! -s "$1/ws/.envrc" && test -d "$1/ws/.vscode" && test -z "$(ls -A "$1/ws/.vscode")"' sh "$P"
	ok "$h: no private directory left behind" sh -c '! ls -d "$1"/cli-sandbox-protect.* >/dev/null 2>&1' sh "$P"
	if [ -n "$PERSON_UID" ]; then
		host_claude "$h" "$P/home/.claude" "$PERSON_UID:$PERSON_GID"
	else
		host_claude "$h" "$P/home/.config/cli-sandbox/state/claude" 0:0
	fi
}

ENGINE_WORDS='' GLOBAL_WORDS='' PERSON_UID='' PERSON_GID='' PERSON_DOCKER_HOST=''
# ---------------------------------------------------------------- podman, the person root
if [ "${SKIP_PODMAN:-0}" = 1 ]; then
	echo "# SKIP_PODMAN=1: the podman half is left out"
else
	podman image exists "$IMAGE" || bail "no image $IMAGE"
	ENGINE=podman ENGINE_WORDS="--network none --ulimit nofile=1024:1024 --ulimit nproc=1000:1000"
	GLOBAL_WORDS="--runtime runc"
	HC_ENGINE=podman HC_LIMITS="--ulimit nofile=1024:1024 --ulimit nproc=1000:1000"
	half podman
	# codex's config.toml, in codex's own run.
	if podman image exists "$CODEX_IMAGE"; then
		env -i HOME="$P/home" PATH=/usr/bin:/bin:/usr/sbin:/sbin TMPDIR="$P" \
			CLI_SANDBOX_KEYS_IN=true CLI_SANDBOX_ENGINE_ARGS="$ENGINE_WORDS" CLI_SANDBOX_ENGINE_GLOBAL_ARGS="$GLOBAL_WORDS" CLI_SANDBOX_IMAGE="$CODEX_IMAGE" \
			timeout 120 "$CS" --engine "$ENGINE" -w "$P/ws" --managed "$URL" shell --cli codex -- -c "$CODEX_PAYLOAD" \
			</dev/null >"$P/codex.out" 2>"$P/codex.err"
		t_note <"$P/codex.out"
		ok "podman: inside codex's run, its config.toml is the sandbox's own copy (the write lands there)" \
			sh -c 'grep -qx "WROTE codex-config" "$1" && grep -qs notify "$2"' sh "$P/codex.out" "$P/home/.config/cli-sandbox/sandbox-own/codex/config.toml"
		ok "podman: codex's config.toml on the host holds no notify" sh -c '! grep -qs notify "$1"' sh "$P/home/.config/cli-sandbox/state/codex/config.toml"
	else
		t_skip "codex's config.toml: no image $CODEX_IMAGE"
	fi
fi

# ---------------------------------------------------------------- rootless podman, keep-id
if [ -s /etc/subuid ]; then
	t_skip "rootless podman with keep-id: not automated here yet (this machine has /etc/subuid)"
else
	t_skip "rootless podman with keep-id: no user here has a subordinate uid range (/etc/subuid is empty), which keep-id needs"
fi

# ---------------------------------------------------------------- dockerd, the person uid 4321
if [ "${SKIP_DOCKER:-0}" = 1 ]; then
	echo "# SKIP_DOCKER=1: the dockerd half is left out"
else
	dockerd_start || bail "the test dockerd did not start"
	dockerd_load "$IMAGE" || bail "cannot load $IMAGE into dockerd"
	PERSON_UID=4321 PERSON_GID=4321
	chgrp "$PERSON_GID" "$DOCKERD_DIR/sock" && chmod 660 "$DOCKERD_DIR/sock"
	chmod 755 "$DOCKERD_DIR"
	PERSON_DOCKER_HOST=$DOCKER_HOST
	ENGINE=docker ENGINE_WORDS="--network none" GLOBAL_WORDS=''
	HC_ENGINE=$DOCKER HC_LIMITS=''
	half dockerd
fi

t_done
