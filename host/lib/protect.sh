# shellcheck shell=sh
# What host tools execute is read-only in the sandbox (issue 31; docs/host-script.md, "What the
# sandbox protects on the host"), and run directories get names no one can guess. Sourced by
# host/cli-sandbox. The walk, its placeholders and its refusals are the program's
# (cli-sandbox-ctl protect, hostctl/protect.c): this file adds its lines to the engine command
# and removes, at the run's end, the private directories it made.

PROTECT_MADE=''     # what this run made, one "KIND PATH" a line, in the order made

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
	PROTECT_MADE="$PROTECT_MADE$1$NL"
}

# protect_mounts CLI ALLOW-HOST-WRITES: add the protection's mounts to CMD (after the
# workspace's and the state folder's), or, when ALLOW-HOST-WRITES is true, a warning. Needs WS,
# STATE_HOST, SB_UID, SB_GID. The program's lines: mount= (-v), env= (-e), made= (KIND PATH;
# D, a private directory, goes at the run's end); a refusal (a link on the way, a placeholder
# that cannot be made) ends the run with its status, the program having said why.
protect_mounts() {
	if [ "$2" = true ]; then
		warn "--allow-host-writes: the agent may write what your own tools run (.git/config and hooks, .vscode, $1's settings and hooks): check what it changed before you run git, your editor or $1 in $WS"
		return 0
	fi
	set -- protect --cli "$1" --workspace "$WS" --state "$STATE_HOST" --sandbox-user "$SB_UID:$SB_GID"
	[ "${dry_run:-false}" = false ] || set -- "$@" --dry-run
	ctl_find
	_out=$("$CTL" "$@") || exit
	_ifs=$IFS IFS=$NL
	for _l in $_out; do
		case $_l in
		mount=*) add -v "${_l#mount=}" ;;
		env=*) add -e "${_l#env=}" ;;
		made=*) protect_made "${_l#made=}" ;;
		*) die "cli-sandbox-ctl gave an unknown protect line: reinstall cli-sandbox and its program together" ;;
		esac
	done
	IFS=$_ifs
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
