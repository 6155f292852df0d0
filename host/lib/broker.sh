# shellcheck shell=sh
# host/lib/broker.sh: the key broker's life cycle (docs/broker.md), as sh functions for the
# runner and the tests; the host-side C program is to take it over with the same interface.
# Source it; every function takes its inputs as arguments (or the key on stdin), evals
# nothing and prints only what it says it prints.
#
# The interface is one directory on memory (tmpfs), mounted read-only at /run/broker:
#   DIR/broker.conf        nginx map/upstream lines: API, models, model policy, upstream
#   DIR/key                the endpoint's key, mode 0400, owned by the broker's uid
#   DIR/tokens/SHA256      one empty file per live run token (revoke = delete)
# and one container: IMAGE (image/build.sh --cli broker) with the options of broker_run_args.
#
#   dir=$(broker_dir_new)                              make DIR (on tmpfs, else refused)
#   broker_config_write DIR API URL MODELS POLICY [KEY-FORM]
#       API     anthropic | openai | gemini (the upstream's API; the paths allowed follow it)
#       URL     http[s]://HOST[:PORT][/PREFIX]; PREFIX goes before the API's path
#       MODELS  comma-separated model names; '' lets every model through
#       POLICY  refuse (400 for another model) | rewrite (another model becomes the first)
#       KEY-FORM x-api-key | bearer | x-goog-api-key (default: the API's own)
#   broker_key_write DIR < KEY                         the key from stdin (never an argument)
#   token=$(broker_token_add DIR)                      a new run token, printed once
#   broker_token_revoke DIR < TOKEN                    the token from stdin
#   broker_start ENGINE NAME IMAGE DIR [ENGINE-RUN-OPTIONS...]   (network, --ip, ...)
#   broker_wait ENGINE NAME                            until nginx listens (10 s at most)
#   broker_stop ENGINE NAME DIR                        the container and DIR removed
# Status: 0, or 1 with one line on stderr naming the problem and the fix.

BROKER_UID=1002

broker__die() {
	echo "broker: $*" >&2
	return 1
}

# broker__match ERE VALUE: VALUE (fed on stdin, never an argument of grep) matches ERE whole.
broker__match() {
	printf '%s\n' "$2" | grep -Eqx -e "$1" && [ "$(printf '%s\n' "$2" | wc -l)" -eq 1 ]
}

broker_dir_new() {
	parent=${CLI_SANDBOX_BROKER_RUNDIR:-/dev/shm}
	[ "$(stat -f -c %T "$parent" 2>/dev/null)" = tmpfs ] ||
		broker__die "$parent is not on memory (tmpfs): set CLI_SANDBOX_BROKER_RUNDIR to a tmpfs directory" || return 1
	d=$(mktemp -d "$parent/cli-sandbox-broker.XXXXXX") || broker__die "cannot make a directory in $parent" || return 1
	# 0711: the broker's uid may pass through, nobody else may list (the tokens' names are hashes).
	if ! chmod 0711 "$d" || ! mkdir -m 0711 "$d/tokens"; then
		rm -rf "$d"
		broker__die "cannot prepare $d"
		return 1
	fi
	printf '%s\n' "$d"
}

broker_config_write() {
	[ $# -ge 5 ] && [ $# -le 6 ] || broker__die "usage: broker_config_write DIR API URL MODELS POLICY [KEY-FORM]" || return 1
	dir=$1 api=$2 url=$3 models=$4 policy=$5 form=${6:-}
	case $api in
	anthropic) : "${form:=x-api-key}" ;;
	openai) : "${form:=bearer}" ;;
	gemini) : "${form:=x-goog-api-key}" ;;
	*) broker__die "API '$api': use anthropic, openai or gemini" || return 1 ;;
	esac
	case $form in x-api-key | bearer | x-goog-api-key) ;; *) broker__die "key form '$form': use x-api-key, bearer or x-goog-api-key" || return 1 ;; esac
	case $policy in refuse | rewrite) ;; *) broker__die "model policy '$policy': use refuse or rewrite" || return 1 ;; esac
	[ -z "$models" ] || broker__match '[A-Za-z0-9][A-Za-z0-9._:@/+-]{0,127}(,[A-Za-z0-9][A-Za-z0-9._:@/+-]{0,127})*' "$models" ||
		broker__die "models '$models': names of letters, digits and ._:@/+- separated by commas" || return 1
	# No userinfo (a password would land in the file): the key goes in DIR/key.
	broker__match '(http|https)://([A-Za-z0-9]([A-Za-z0-9.-]{0,252})|\[[0-9A-Fa-f:.]{2,45}\])(:[0-9]{1,5})?(/[A-Za-z0-9._~-]+)*' "$url" ||
		broker__die "upstream URL '$url': use http[s]://HOST[:PORT][/PREFIX] (no user:password@: the key goes in the key file)" || return 1
	scheme=${url%%://*} rest=${url#*://}
	hostport=${rest%%/*} prefix=""
	case $rest in */*) prefix=/${rest#*/} ;; esac
	case $hostport in
	\[*\]:*) host=${hostport%:*} port=${hostport##*:} ;;
	\[*\]) host=$hostport port="" ;;
	*:*) host=${hostport%:*} port=${hostport##*:} ;;
	*) host=$hostport port="" ;;
	esac
	hostheader=$hostport
	if [ -z "$port" ]; then
		if [ "$scheme" = https ]; then port=443; else port=80; fi
	elif { [ "$scheme" = https ] && [ "$port" = 443 ]; } || { [ "$scheme" = http ] && [ "$port" = 80 ]; }; then
		hostheader=$host
	fi
	[ "$port" -ge 1 ] && [ "$port" -le 65535 ] || broker__die "upstream port $port: use 1-65535" || return 1
	sslname=$host
	case $host in \[*\]) sslname=${host#[} sslname=${sslname%]} ;; esac
	# shellcheck disable=SC2016 # $broker_* are nginx's variables, written as they are
	{
		echo "# written by host/lib/broker.sh (docs/broker.md); read by /usr/share/cli-sandbox-broker/nginx.conf"
		printf 'map "" $broker_api { default "%s"; }\n' "$api"
		printf 'map "" $broker_models { default "%s"; }\n' "$models"
		printf 'map "" $broker_model_policy { default "%s"; }\n' "$policy"
		printf 'map "" $broker_key_header { default "%s"; }\n' "$form"
		printf 'map "" $broker_scheme { default "%s"; }\n' "$scheme"
		printf 'map "" $broker_host { default "%s"; }\n' "$sslname"
		printf 'map "" $broker_host_header { default "%s"; }\n' "$hostheader"
		printf 'map "" $broker_prefix { default "%s"; }\n' "$prefix"
		printf 'upstream broker_upstream {\n    server %s:%s;\n    keepalive 8;\n}\n' "$host" "$port"
	} >"$dir/broker.conf.new" && chmod 0644 "$dir/broker.conf.new" && mv "$dir/broker.conf.new" "$dir/broker.conf" ||
		broker__die "cannot write $dir/broker.conf" || return 1
}

# As root the key file is the broker's uid's, mode 0400. A person who is not root cannot give
# it away: it is then 0444, and the caller keeps DIR inside a private (0700) directory of its
# own (host/lib/keys.sh does), which no other user of this host can enter; the broker reads
# it through its mount.
broker_key_write() {
	[ $# -eq 1 ] || broker__die "usage: broker_key_write DIR < KEY" || return 1
	(
		umask 077
		cat >"$1/key.new" || exit 1
		if [ "$(id -u)" = 0 ]; then
			chown "$BROKER_UID:$BROKER_UID" "$1/key.new" && chmod 0400 "$1/key.new"
		else
			chmod 0444 "$1/key.new"
		fi && mv "$1/key.new" "$1/key"
	) || { rm -f "$1/key.new"; broker__die "cannot write the key to $1/key"; }
}

# broker__hash: the SHA-256 (hex) of stdin.
broker__hash() {
	sha256sum | cut -c1-64
}

broker_token_add() {
	[ $# -eq 1 ] || broker__die "usage: token=\$(broker_token_add DIR)" || return 1
	token=csbt_$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')
	[ ${#token} -eq 69 ] || broker__die "cannot read /dev/urandom" || return 1
	h=$(printf '%s' "$token" | broker__hash)
	(umask 077 && : >"$1/tokens/$h") || broker__die "cannot add a token in $1/tokens" || return 1
	printf '%s\n' "$token"
}

broker_token_revoke() {
	[ $# -eq 1 ] || broker__die "usage: broker_token_revoke DIR < TOKEN" || return 1
	IFS= read -r token || [ -n "$token" ] || broker__die "no token on stdin" || return 1
	h=$(printf '%s' "$token" | broker__hash)
	rm -f "$1/tokens/$h"
}

# The confinement every broker runs with: read-only root, /tmp the only writable path (on
# memory), no capability, no_new_privs, an unprivileged uid, 64 MiB and 64 PIDs.
broker_start() {
	[ $# -ge 4 ] || broker__die "usage: broker_start ENGINE NAME IMAGE DIR [ENGINE-RUN-OPTIONS...]" || return 1
	engine=$1 name=$2 img=$3 dir=$4
	shift 4
	[ -s "$dir/broker.conf" ] || broker__die "$dir/broker.conf is missing: run broker_config_write first" || return 1
	"$engine" run -d --name "$name" \
		--read-only --tmpfs /tmp:rw,nosuid,nodev,noexec,size=16m,mode=1777 \
		--cap-drop ALL --security-opt no-new-privileges \
		--user "$BROKER_UID:$BROKER_UID" \
		--memory 64m --memory-swap 64m --pids-limit 64 \
		--volume "$dir:/run/broker:ro" \
		--label io.cli-sandbox.role=broker \
		"$@" "$img" >/dev/null ||
		broker__die "the broker $name did not start: see '$engine logs $name'"
}

broker_wait() {
	[ $# -eq 2 ] || broker__die "usage: broker_wait ENGINE NAME" || return 1
	i=0
	while [ "$i" -lt 100 ]; do
		# 1F90: port 8080, 0A: LISTEN (the image has no client: /proc is enough)
		if "$1" exec "$2" cat /proc/net/tcp 2>/dev/null | grep -q ':1F90 00000000:0000 0A'; then
			return 0
		fi
		[ "$("$1" inspect -f '{{.State.Running}}' "$2" 2>/dev/null)" = true ] || break
		sleep 0.1
		i=$((i + 1))
	done
	broker__die "the broker $2 does not listen: see '$1 logs $2'"
}

broker_stop() {
	[ $# -eq 3 ] || broker__die "usage: broker_stop ENGINE NAME DIR" || return 1
	"$1" rm -f "$2" >/dev/null 2>&1
	case $3 in
	*/cli-sandbox-broker.*) rm -rf "$3" ;;
	esac
}
