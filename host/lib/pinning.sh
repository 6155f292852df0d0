# shellcheck shell=sh
# The pinning resolver beside an --interactive run (docs/interactive.md, "Pinned DNS").
# Sourced by cli-sandbox; POSIX sh.
#
# The resolver's container owns the run's network namespace: it is started first, on the
# network the sandbox would have had (the gateway's, or CLI_SANDBOX_ENGINE_ARGS' --network
# and --dns), and the sandbox joins it with --network container:NAME. So the resolver
# listens on 127.0.0.1:53 before the sandbox exists, and the CLI's first lookup finds it.
# Its answers can be pinned only once the sandbox's init has made the set `pinned`; until
# then it answers SERVFAIL (only the init's own warm-up asks that early, and falls back to
# the upstream, before any firewall).
#
# The upstream is what the engine wrote into the resolver's own resolv.conf (Docker's
# embedded 127.0.0.11 on a user network; podman's network DNS, or the host's nameservers):
# the resolver reads it and names it in its start line. The sandbox gets a resolv.conf of
# its own, mounted over /etc/resolv.conf: 127.0.0.1 first, then those upstreams. The init
# reads it for its rules (DNS to 127.0.0.1:53 from anyone; to the upstreams from the
# resolver's uid alone), and the CLI's C library asks 127.0.0.1 first, where an allowed
# name is answered; what the resolver refuses never gets past the firewall to the others.

PIN_UID=1003        # the resolver's uid: node (the CLI) is 1000, the gateway 1001, the broker 1002
PIN=false           # whether this run pins (pin_plan)
PIN_CT=''           # the resolver's container, once started
PIN_DIR=''          # the folder of the sandbox's resolv.conf
PIN_WORDS=''        # CLI_SANDBOX_ENGINE_ARGS' words for the resolver's container (its network)
SB_WORDS=''         # and those for the sandbox

# pin_plan COMMAND: decide whether this run pins, and split CLI_SANDBOX_ENGINE_ARGS: the
# words that place a container on a network (--network, --net, --dns*, --add-host, --ip,
# --ip6, --mac-address, --hostname, each with its value) belong to the namespace's owner,
# the resolver's container; --ulimit goes to both; the rest to the sandbox.
pin_plan() {
	PIN_CMD=$1
	SB_WORDS=${CLI_SANDBOX_ENGINE_ARGS:-} PIN_WORDS=''
	[ "$profile" = interactive ] && [ "$pinning" = true ] || return 0
	if [ "$engine" = podman ] && [ "$INV_UID" != 0 ]; then
		# Rootless podman gives each keep-id container a user namespace of its own, and the
		# sandbox's init could not program a network namespace owned by another one.
		warn "rootless podman: the pinning resolver is not wired here yet; names are resolved once, at start (docs/interactive.md)"
		return 0
	fi
	PIN=true PIN_CT=cli-sandbox-dns-$$ SB_WORDS='' _to=''
	for _w in ${CLI_SANDBOX_ENGINE_ARGS:-}; do
		if [ -n "$_to" ]; then
			[ "$_to" = sandbox ] || PIN_WORDS="$PIN_WORDS $_w"
			[ "$_to" = resolver ] || SB_WORDS="$SB_WORDS $_w"
			_to=''
			continue
		fi
		case $_w in
		--network=* | --net=* | --dns=* | --dns-option=* | --dns-search=* | --add-host=* | --ip=* | --ip6=* | --mac-address=* | --hostname=*)
			PIN_WORDS="$PIN_WORDS $_w" ;;
		--network | --net | --dns | --dns-option | --dns-search | --add-host | --ip | --ip6 | --mac-address | --hostname)
			PIN_WORDS="$PIN_WORDS $_w" _to=resolver ;;
		--ulimit=*) PIN_WORDS="$PIN_WORDS $_w" SB_WORDS="$SB_WORDS $_w" ;;
		--ulimit) PIN_WORDS="$PIN_WORDS $_w" SB_WORDS="$SB_WORDS $_w" _to=both ;;
		*) SB_WORDS="$SB_WORDS $_w" ;;
		esac
	done
}

# pin_cmd: CMD set to the resolver container's run command. Its caps at start are those to
# bind port 53 and change to PIN_UID keeping NET_ADMIN; it keeps NET_ADMIN alone, reads that
# back and loads its seccomp filter before it serves (resolver/confine.c).
pin_cmd() {
	CMD=
	# KILL: as PID 1 of its container the resolver takes no SIGTERM, and rm -f would wait 10 s.
	# No --rm: when it stops at once, its log says why; the run's end removes it (pin_cleanup).
	add run -d --name "$PIN_CT" --stop-signal=KILL
	for _a in $PIN_WORDS; do add "$_a"; done
	pin_network_words
	add --cap-drop=ALL --cap-add=NET_ADMIN --cap-add=NET_BIND_SERVICE --cap-add=SETUID --cap-add=SETGID --cap-add=SETPCAP
	add --security-opt=no-new-privileges --read-only --user 0:0 --memory 64m --memory-swap 64m --pids-limit 16
	add --entrypoint /usr/local/sbin/cli-sandbox-resolver
	add -e CLI_SANDBOX_EGRESS_PROFILE=interactive -e CLI_SANDBOX_DNS=pinned -e "CLI_SANDBOX_RESOLVER_UID=$PIN_UID"
	[ -z "$url" ] || add -e "TASK_AGENT_MODEL_BASE_URL=$url"
	[ -z "$allow" ] || add -e "CLI_SANDBOX_ALLOW=$allow"
	run_image
	add "$IMG" --names-for "$PIN_CMD"
}

# pin_network_words: the run's network, where it has its own: the key broker's (host/lib/keys.sh;
# a translation's router sits behind it). With pinning the resolver's container owns the
# namespace, so it is the one on that network.
pin_network_words() {
	[ "${KB:-false}" = false ] || add --network "$KB_NET"
}

# pin_sandbox_words: the sandbox's own words (after the limits); with pinning, it joins the
# resolver's namespace and gets its resolv.conf and the init's two variables.
pin_sandbox_words() {
	for _a in $SB_WORDS; do add "$_a"; done
	if [ "$PIN" = false ]; then
		pin_network_words
		return 0
	fi
	_saved=$CMD
	pin_cmd
	if [ "$dry_run" = true ]; then
		echo "# the pinning resolver beside the sandbox, owning its network namespace (docs/interactive.md):"
		eval "set -- $GLOBAL_Q $CMD"; print_cmd "$engine" "$@"
		echo "# then the sandbox in its namespace; <run-dir>/resolv.conf names 127.0.0.1, then the resolver's upstreams:"
		CMD=$_saved
		add --network "container:$PIN_CT" -v "<run-dir>/resolv.conf:/etc/resolv.conf:ro"
	else
		# shellcheck disable=SC2119 # see pin_start
		pin_start
		CMD=$_saved
		add --network "container:$PIN_CT" -v "$PIN_DIR/resolv.conf:/etc/resolv.conf:ro"
	fi
	add -e CLI_SANDBOX_DNS=pinned -e "CLI_SANDBOX_RESOLVER_UID=$PIN_UID"
}

# pin_start: start the resolver (CMD), wait until it serves (bounded), write the resolv.conf.
# It takes no arguments: its own positional parameters hold the engine command.
# shellcheck disable=SC2120
pin_start() {
	trap on_exit EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	PIN_DIR=$(mktemp -d "${TMPDIR:-/tmp}/cli-sandbox-dns.XXXXXX") || die "cannot make a folder for the sandbox's resolv.conf in ${TMPDIR:-/tmp}"
	chmod 755 "$PIN_DIR"
	eval "set -- $GLOBAL_Q $CMD"
	"$engine" "$@" >/dev/null || die "the pinning resolver's container did not start (above); run with --no-pinning to resolve names once instead"
	_i=0 _up=''
	while [ "$_i" -lt 100 ]; do
		_log=$(eng logs "$PIN_CT" 2>&1) || break
		case $_log in
		*'cli-sandbox-resolver: serving '*)
			_up=${_log##*, upstream }
			_up=${_up%%, pinning*}
			break ;;
		*'cli-sandbox-resolver: error'*) break ;;
		esac
		sleep 0.1
		_i=$((_i + 1))
	done
	case $_up in
	'' | *[!0-9.,]*)
		printf '%s\n' "$_log" | tail -n 3 >&2
		die "the pinning resolver did not start serving (above); run with --no-pinning to resolve names once instead" ;;
	esac
	{
		echo "# cli-sandbox: the pinning resolver first, then its upstreams (docs/interactive.md)"
		echo "nameserver 127.0.0.1"
		_old_ifs=$IFS IFS=,
		for _a in $_up; do echo "nameserver $_a"; done
		IFS=$_old_ifs
	} >"$PIN_DIR/resolv.conf" || die "cannot write $PIN_DIR/resolv.conf"
	chmod 644 "$PIN_DIR/resolv.conf"
}

# pin_cleanup: stop the resolver with the run (the EXIT trap), remove the resolv.conf.
pin_cleanup() {
	[ -z "$PIN_DIR" ] || rm -rf -- "$PIN_DIR"
	[ -z "$PIN_CT" ] || [ "$PIN" = false ] || [ "$dry_run" = true ] || eng_end rm -f "$PIN_CT" >/dev/null 2>&1
}
