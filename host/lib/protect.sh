# shellcheck shell=sh
# What host tools execute is read-only in the sandbox (issue 31; docs/host-script.md, "What the
# sandbox protects on the host"), and run directories get names no one can guess. Sourced by
# host/cli-sandbox.
#
# The workspace and the CLI's state folder are the person's own folders, mounted read-write with
# their uid: what the agent writes there, the person's own tools read later (git runs
# core.fsmonitor and hooks, an editor runs .vscode/tasks.json, claude runs settings.json's hooks).
# So each such path gets a read-only bind mount over it; an absent one gets a placeholder made
# here (an empty file or folder) so that it cannot be created either; every folder that holds a
# protected path is made a mount point itself (bound onto itself), so that it cannot be renamed
# away and replaced (rename(2) of a mount point fails with EBUSY). Placeholders are made only on
# a real run and stay after it (protect_cleanup says why).

PROTECT_MADE=''     # what this run made, one "KIND PATH" a line, in the order made
PROTECT_LIST=''     # the mounts: "MODE<TAB>HOST<TAB>CONTAINER" a line, MODE ro or rw
PROTECT_EXCLUDE=''  # workspace file placeholders, for git's excludes inside ("/NAME" a line)
TAB='	'

# Workspace paths (relative to its top): f a file, d a folder, the placeholder's kind. Why each
# is here: docs/host-script.md.
PROTECT_WS_PATHS='f .gitmodules
f .gitattributes
f .envrc
j .mcp.json
j .claude/settings.json
j .claude/settings.local.json
d .claude/commands
d .claude/agents
d .claude/hooks
d .claude/skills
d .vscode
d .idea
d .codex
d .gemini
d .pi
w .opencode
j opencode.json
j opencode.jsonc'

# private_dir BASE PREFIX: make BASE/PREFIX.RANDOM (mode 700; RANDOM 16 hex digits from
# /dev/urandom), set PRIVATE_DIR to it. mkdir never follows a link and fails on any existing
# name, so a name someone made first is skipped: a few new names are tried, then the run stops.
# (A dry run makes nothing: its callers show the name as BASE/PREFIX.RANDOM.)
private_dir() {
	for _try in 1 2 3 4 5; do
		_r=$(od -An -N8 -tx8 /dev/urandom 2>/dev/null) || _r=''
		_r=${_r##* }
		case $_r in ???????????????? ) ;; *) die "cannot read /dev/urandom for a private directory's name: check that /dev/urandom is readable" ;; esac
		case $_r in *[!0-9a-f]*) die "cannot read /dev/urandom for a private directory's name: check that /dev/urandom is readable" ;; esac
		PRIVATE_DIR=$1/$2.$_r
		(umask 077 && mkdir -- "$PRIVATE_DIR") 2>/dev/null && return 0
	done
	die "cannot create a private directory $1/$2.* (5 random names tried): check that $1 exists and is writable by you"
}

# protect_made KIND PATH: record what this run made, and make sure the run's end removes it.
protect_made() {
	[ -n "$PROTECT_MADE" ] || {
		trap on_exit EXIT
		trap 'exit 129' HUP
		trap 'exit 130' INT
		trap 'exit 143' TERM
	}
	PROTECT_MADE="$PROTECT_MADE$1 $2$NL"
}

# protect_mount MODE HOST CONTAINER: add the mount once (the first one for CONTAINER wins).
protect_mount() {
	case $NL$PROTECT_LIST in *"$TAB$3$NL"*) return 0 ;; esac
	PROTECT_LIST="$PROTECT_LIST$1$TAB$2$TAB$3$NL"
}

# protect_placeholder KIND HOSTPATH: make the placeholder (a real run only). noclobber opens
# with O_EXCL, so nothing is followed or overwritten. Fails, making nothing, where you may not
# write the folder: the sandbox user, who is you (or, for root, uid 1000 in a folder of root's
# choosing, which root may write), could not create the path either.
protect_placeholder() {
	# The nearest folder that exists (a dry run makes none of the placeholders above).
	_up=${2%/*}
	while [ ! -e "$_up" ] && [ "$_up" != "${_up%/*}" ]; do _up=${_up%/*}; done
	[ "$INV_UID" = 0 ] || [ -w "$_up" ] || return 1
	[ "${dry_run:-false}" = false ] || return 0
	case $1 in
	d | p) (umask 022 && mkdir -- "$2") ;;
	f) (set -C && umask 022 && : >"$2") ;;
	j) (set -C && umask 022 && printf '{}\n' >"$2") ;;
	c) (set -C && umask 022 && printf '.\n' >"$2") ;;
	esac || die "cannot create the placeholder $2 (the sandbox mounts it read-only so that the agent cannot create it): check that you can write its folder, or pass --allow-host-writes"
	protect_made "$1" "$2"
	# A folder made to hold placeholders, run as root: the sandbox user's, so that the agent may
	# still write other files in it, as it could before.
	if [ "$1" = p ] && [ "$INV_UID" = 0 ]; then chown -h "$SB_UID:$SB_GID" -- "$2" || :; fi
}

# protect_path HOST CT KIND REL: protect REL under the host folder HOST (mounted at CT): every
# folder above it (below HOST) bound onto itself, REL itself read-only, a placeholder of KIND
# when absent. A link on the way stops the run: the engine would mount its target.
# KIND r: a folder bound read-write onto itself (a mount point, so not renamed away).
protect_path() {
	case $4 in *"$NL"* | *"$TAB"* | *:*) die "cannot protect '$1/$4': its name has a ':', a tab or a line break, which the engine's -v option cannot mount; rename it, or pass --allow-host-writes" ;; esac
	_pre='' _rest=$4
	while :; do
		case $_rest in */*) _c=${_rest%%/*} _rest=${_rest#*/} ;; *) break ;; esac
		_pre=$_pre$_c
		protect_check "$1/$_pre"
		if [ -e "$1/$_pre" ] && [ ! -d "$1/$_pre" ]; then
			# A file where a folder would be: it can hold nothing, so it is kept as it is.
			protect_mount ro "$1/$_pre" "$2/$_pre"
			return 0
		fi
		[ -e "$1/$_pre" ] || protect_placeholder p "$1/$_pre" || return 0
		protect_mount rw "$1/$_pre" "$2/$_pre"
		_pre=$_pre/
	done
	protect_check "$1/$4"
	[ -e "$1/$4" ] || protect_placeholder "$3" "$1/$4" || return 0
	if [ "$3" = r ]; then protect_mount rw "$1/$4" "$2/$4"; else protect_mount ro "$1/$4" "$2/$4"; fi
}
protect_check() {
	[ ! -L "$1" ] || die "$1 is a symbolic link, which the sandbox cannot mount read-only (the engine would mount what it points to): remove it or replace it with what it points to, or pass --allow-host-writes"
}

# protect_gitdir REL: a git directory inside the workspace (REL from its top): what git runs
# (config, hooks, info/attributes, config.worktree) read-only; commondir read-only, or, where
# there is none, a placeholder saying "." (this directory is the common one, as without it: an
# empty one would stop git); modules/ read-only, so no submodule's git directory can be planted
# for a later 'git submodule update --init'; the directory itself a mount point.
protect_gitdir() {
	_gw=$WS/$1
	protect_path "$WS" /workspace r "$1"
	for _p in 'f config' 'd hooks' 'd info' 'f config.worktree' 'd modules'; do
		protect_path "$WS" /workspace "${_p%% *}" "$1/${_p#* }"
	done
	protect_path "$WS" /workspace c "$1/commondir"
	# Each submodule's git directory (a HEAD in it), found below modules/; the walk skips what
	# holds no git directory.
	_found=''
	[ ! -d "$_gw/modules" ] ||
		_found=$(find "$_gw/modules" -mindepth 2 -maxdepth 16 \( -name objects -o -name refs -o -name logs -o -name hooks -o -name info \) -prune -o -type f -name HEAD -print 2>/dev/null) || _found=''
	while read -r _head; do
		[ -n "$_head" ] || continue
		_sub=${_head%/HEAD}
		_sub=${_sub#"$WS"/}
		protect_path "$WS" /workspace r "$_sub"
		for _p in 'f config' 'd hooks' 'd info' 'f config.worktree' 'd modules'; do
			protect_path "$WS" /workspace "${_p%% *}" "$_sub/${_p#* }"
		done
		[ ! -e "$WS/$_sub/commondir" ] || protect_path "$WS" /workspace f "$_sub/commondir"
		# Its checkout's .git file (core.worktree in its config), when inside the workspace.
		_wt=$(awk -F ' *= *' '/^[ \t]*worktree[ \t]*=/ { print $2; exit }' "$WS/$_sub/config" 2>/dev/null) || _wt=''
		[ -z "$_wt" ] || protect_gitfile "$WS/$_sub" "$_wt"
	done <<EOF
$_found
EOF
	# Linked worktrees: each one's folder a mount point, its config.worktree and commondir
	# read-only, and its checkout's .git file when inside the workspace (gitdir names it).
	[ -d "$_gw/worktrees" ] || return 0
	_found=$(find "$_gw/worktrees" -mindepth 1 -maxdepth 1 -type d 2>/dev/null) || _found=''
	while read -r _wtd; do
		[ -n "$_wtd" ] || continue
		_w=${_wtd#"$WS"/}
		protect_path "$WS" /workspace f "$_w/config.worktree"
		[ ! -e "$_wtd/commondir" ] || protect_path "$WS" /workspace f "$_w/commondir"
		_wt=$(cat -- "$_wtd/gitdir" 2>/dev/null) || _wt=''
		[ -z "$_wt" ] || protect_gitfile "$_wtd" "${_wt%/.git}"
	done <<EOF
$_found
EOF
}

# protect_gitfile BASE DIR: the .git file of the checkout DIR (relative to BASE, or absolute)
# read-only, when DIR is inside the workspace: it names the git directory git uses there.
protect_gitfile() {
	case $2 in /*) _d=$2 ;; *) _d=$1/$2 ;; esac
	_d=$(cd -P -- "$_d" 2>/dev/null && pwd -P) || return 0
	case $_d in "$WS"/*) ;; *) return 0 ;; esac
	[ -f "$_d/.git" ] || return 0
	protect_path "$WS" /workspace f "${_d#"$WS"/}/.git"
	for _p in .gitmodules .gitattributes; do
		[ ! -e "$_d/$_p" ] || protect_path "$WS" /workspace f "${_d#"$WS"/}/$_p"
	done
}

# protect_git: the workspace's own .git: a folder is a git directory; a file (a linked worktree,
# a submodule's checkout) is read-only, and the git directory it names is protected when it is
# inside the workspace (outside, it is not mounted at all), with its common directory; none
# (not a repository) gets an empty read-only folder, so that the agent cannot make one.
protect_git() {
	protect_check "$WS/.git"
	if [ -d "$WS/.git" ]; then
		protect_gitdir .git
	elif [ -f "$WS/.git" ]; then
		protect_path "$WS" /workspace f .git
		_l=$(sed -n '1s/^gitdir: *//p' "$WS/.git" 2>/dev/null) || _l=''
		case $_l in '') return 0 ;; /*) ;; *) _l=$WS/$_l ;; esac
		_g=$(cd -P -- "$_l" 2>/dev/null && pwd -P) || return 0
		case $_g in "$WS"/*) ;; *) return 0 ;; esac
		_c=$(cat -- "$_g/commondir" 2>/dev/null) || _c=''
		protect_gitdir "${_g#"$WS"/}"
		case $_c in '') return 0 ;; /*) ;; *) _c=$_g/$_c ;; esac
		_c=$(cd -P -- "$_c" 2>/dev/null && pwd -P) || return 0
		case $_c in "$WS"/*) protect_gitdir "${_c#"$WS"/}" ;; esac
	else
		protect_path "$WS" /workspace d .git
	fi
}

# protect_mounts CLI ALLOW-HOST-WRITES: add the protection's mounts to CMD (after the
# workspace's and the state folder's), or, when ALLOW-HOST-WRITES is true, a warning. Needs WS,
# STATE_HOST, CLI_DIR.
protect_mounts() {
	if [ "$2" = true ]; then
		warn "--allow-host-writes: the agent may write what your own tools run (.git/config and hooks, .vscode, $1's settings and hooks): check what it changed before you run git, your editor or $1 in $WS"
		return 0
	fi
	PROTECT_LIST=''
	protect_git
	while read -r _k _rel; do
		if [ "$_k" = w ]; then protect_own_dir "$_rel"; continue; fi
		protect_path "$WS" /workspace "$_k" "$_rel"
		case $_k in [fj]) PROTECT_EXCLUDE="$PROTECT_EXCLUDE/$_rel$NL" ;; esac
	done <<EOF
$PROTECT_WS_PATHS
EOF
	# What the CLI runs from its state folder: its row of the one CLI table (base/cli_names.c,
	# cli_protect lines of cli-sandbox-ctl runner).
	while read -r _k _rel; do
		case $_k in
		'') ;;
		o) protect_own_copy "$1" "$_rel" ;;
		*) protect_path "$STATE_HOST" "/home/node/$CLI_DIR" "$_k" "$_rel" ;;
		esac
	done <<EOF
$CLI_PROTECT
EOF
	while IFS=$TAB read -r _m _h _c; do
		[ -n "$_m" ] || continue
		if [ "$_m" = ro ]; then add -v "$_h:$_c:ro"; else add -v "$_h:$_c"; fi
	done <<EOF
$PROTECT_LIST
EOF
	protect_git_excludes
}

# protect_own_copy CLI REL: a file the CLI must write to work (codex records a project's trust
# in config.toml, and its TUI cannot go on without that write) is the sandbox's own copy, kept
# under CLI_SANDBOX_HOME/sandbox-own/CLI (made from yours the first time) and mounted over REL:
# the CLI inside reads and writes the copy, and the file your own CLI runs (its notify command)
# is never written. Yours gets an empty placeholder where there is none, so the mount has a
# point that cannot be renamed away.
protect_own_copy() {
	# shellcheck disable=SC2154 # conf: CLI_SANDBOX_HOME, set by host/cli-sandbox
	_own=$conf/sandbox-own/$1/$2
	protect_check "$STATE_HOST/$2"
	[ -e "$STATE_HOST/$2" ] || protect_placeholder f "$STATE_HOST/$2" || return 0
	if [ "${dry_run:-false}" = false ] && [ ! -e "$_own" ]; then
		(umask 077 && mkdir -p -- "${_own%/*}") || die "cannot create ${_own%/*}: check that you can write $conf"
		(umask 077 && cat -- "$STATE_HOST/$2" >"$_own") || die "cannot create $_own: check that you can write $conf"
		# codex writes config.toml by renaming a new file over it, which a mount point refuses
		# (EBUSY): its trust screen could never record the answer, and its TUI stopped there.
		# The copy says at once what that answer would have written: /workspace is trusted.
		if [ "$1/$2" = codex/config.toml ] && ! grep -qF '[projects."/workspace"]' "$_own"; then
			printf '\n[projects."/workspace"]\ntrust_level = "trusted"\n' >>"$_own" ||
				die "cannot write $_own: check that you can write $conf"
		fi
		# the sandbox user writes it (uid 1000 when run as root)
		[ "$INV_UID" != 0 ] || chown "$SB_UID:$SB_GID" -- "$_own" || :
	fi
	protect_check "$_own"
	protect_mount rw "$_own" "/home/node/$CLI_DIR/$2"
}

# protect_own_dir REL: a workspace folder that a CLI writes to start (opencode writes its
# project folder .opencode, plugins' package files among them, and stops with "Unexpected server
# error" where it is read-only: found by the CI rehearsal's TUI test) and that a host tool loads
# as code (opencode runs the plugins there): the run gets its own copy, made from yours in a
# private directory and mounted over it, removed at the end. Yours is never written; where it
# is absent, an empty placeholder folder is the mount point.
protect_own_dir() {
	protect_check "$WS/$1"
	[ -e "$WS/$1" ] || protect_placeholder d "$WS/$1" || return 0
	[ -d "$WS/$1" ] || { protect_mount ro "$WS/$1" "/workspace/$1"; return 0; }
	_own=${TMPDIR:-/tmp}/cli-sandbox-own.RANDOM/d
	if [ "${dry_run:-false}" = false ]; then
		private_dir "${TMPDIR:-/tmp}" cli-sandbox-own
		protect_made D "$PRIVATE_DIR"
		_own=$PRIVATE_DIR/d
		# an empty folder (the placeholder, most often) needs no cp
		if [ -z "$(ls -A -- "$WS/$1")" ]; then
			mkdir -- "$_own"
		else
			cp -R -- "$WS/$1" "$_own"
		fi || die "cannot copy $WS/$1 for the sandbox: check the space on ${TMPDIR:-/tmp}"
		chmod 711 "$PRIVATE_DIR" || :
		# the sandbox user writes it (uid 1000 when run as root)
		[ "$INV_UID" != 0 ] || chown -R "$SB_UID:$SB_GID" -- "$_own" || :
	fi
	protect_mount rw "$_own" "/workspace/$1"
}

# protect_git_excludes: the workspace's file placeholders would show in git status inside and be
# taken by 'git add -A': a file of excludes (in a private directory, removed at the end) that
# git inside reads as core.excludesFile (from the environment: no config file is written).
protect_git_excludes() {
	[ -n "$PROTECT_EXCLUDE" ] || return 0
	case ${TMPDIR:-/tmp} in *:*) return 0 ;; esac
	PRIVATE_DIR=${TMPDIR:-/tmp}/cli-sandbox-protect.RANDOM
	if [ "${dry_run:-false}" = false ]; then
		private_dir "${TMPDIR:-/tmp}" cli-sandbox-protect
		protect_made D "$PRIVATE_DIR"
		(umask 022 && printf '%s' "$PROTECT_EXCLUDE" >"$PRIVATE_DIR/exclude") ||
			die "cannot write $PRIVATE_DIR/exclude: check the space on ${TMPDIR:-/tmp}"
		chmod 711 "$PRIVATE_DIR" || :
	fi
	add -v "$PRIVATE_DIR/exclude:/run/cli-sandbox-protect/exclude:ro"
	add -e GIT_CONFIG_COUNT=1 -e GIT_CONFIG_KEY_0=core.excludesFile -e GIT_CONFIG_VALUE_0=/run/cli-sandbox-protect/exclude
}

# protect_cleanup: remove the private directory. The placeholders stay: another run on the same
# workspace may have found them and mounted them read-only as yours, and removing one would
# detach that run's mount (Linux unmounts, in every other namespace, what sits on a removed
# file or folder), leaving the path writable there. A run killed while another started showed
# it (the CI rehearsal: the next run's mount source vanished).
protect_cleanup() {
	[ -n "$PROTECT_MADE" ] || return 0
	while read -r _k _p; do
		[ "$_k" != D ] || rm -rf -- "$_p"
	done <<EOF
$PROTECT_MADE
EOF
	PROTECT_MADE=''
}
