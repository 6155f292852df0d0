#!/bin/sh
# check-image.sh CLI=VERSION...: the last step of every Dockerfile target, run as root in
# the image being built. It fails the build (one line on stderr naming the problem) when
#   - any file is setuid or setgid;
#   - a tool the firewall design rules out is present: sudo, iptables, ip6tables, ipset,
#     nft, dig, nslookup, or a container daemon (dockerd, containerd);
#   - a toolset command is missing;
#   - a CLI named here is missing or not the pinned VERSION, or a CLI not named here is
#     present (each per-CLI image holds its own CLI only).
# Not shipped in the image: the Dockerfile bind-mounts it for that one step.
set -eu

die() { echo "check-image.sh: $*" >&2; exit 1; }

suid=$(find / -xdev -type f -perm /6000 -print -quit)
[ -z "$suid" ] || die "setuid/setgid file $suid: clear the bit in the layer that installs it"

for tool in sudo iptables ip6tables ipset nft dig nslookup dockerd containerd; do
	! command -v "$tool" >/dev/null 2>&1 || die "unexpected $tool in the image: remove the package that ships it"
done

for tool in git ssh rg fd fdfind gh jq make patch diff less ps pstree tree unzip zip file \
	nano vi python3 pip3 gcc g++ cc curl bwrap docker node; do
	command -v "$tool" >/dev/null 2>&1 || die "toolset command $tool is missing"
done
python3 -c 'import venv, ensurepip' || die "python3 venv/ensurepip is missing (python3-venv)"

/usr/local/sbin/cli-sandbox-init --version >/dev/null || die "the init does not run"
# The pinning resolver (the interactive profile's sidecar) runs: with no option it refuses to
# start with the contract's 78, which a missing or unlinkable binary would not give.
rc=0
/usr/local/sbin/cli-sandbox-resolver >/dev/null 2>&1 || rc=$?
[ "$rc" -eq 78 ] || die "the resolver does not run (status $rc, 78 expected for no option): rebuild the image"

HOME=$(mktemp -d)
export HOME
want_claude='' want_codex='' want_pi='' want_gemini='' want_opencode=''
for arg in "$@"; do
	case $arg in
	claude=?*) want_claude=${arg#*=} ;;
	codex=?*) want_codex=${arg#*=} ;;
	pi=?*) want_pi=${arg#*=} ;;
	gemini=?*) want_gemini=${arg#*=} ;;
	opencode=?*) want_opencode=${arg#*=} ;;
	*) die "bad argument '$arg': use claude=, codex=, pi=, gemini= or opencode=VERSION" ;;
	esac
done
# check CLI VERSION LINE COMMAND...: with a VERSION, COMMAND prints exactly LINE on stdout
# (codex warns on stderr about a home under /tmp); without one, the CLI is absent.
check() {
	cli=$1 want=$2 line=$3
	shift 3
	if [ -z "$want" ]; then
		! command -v "$cli" >/dev/null 2>&1 || die "$cli is in an image that should not hold it"
		return 0
	fi
	got=$("$@") || die "$cli --version failed"
	[ "$got" = "$line" ] || die "$cli --version says '$got', not the pinned $want"
}
check claude "$want_claude" "$want_claude (Claude Code)" claude --version
check codex "$want_codex" "codex-cli $want_codex" codex --version
check pi "$want_pi" "$want_pi" sh -c 'pi --version 2>&1' # pi prints it on stderr
check gemini "$want_gemini" "$want_gemini" gemini --version
check opencode "$want_opencode" "$want_opencode" opencode --version
rm -rf "$HOME"
