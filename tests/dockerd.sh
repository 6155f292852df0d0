# A private Docker engine for tests; source it.
#
#   dockerd_start        starts dockerd (Debian's docker.io) with its data root,
#                        exec root, pidfile and socket in a temp directory of its
#                        own, and --iptables=false --ip6tables=false
#                        --bridge=none, so it changes nothing in this machine's
#                        network namespace; exports DOCKER_HOST; returns 1 when
#                        the daemon did not come up within 60 s
#   dockerd_load IMAGE   copies IMAGE from podman's storage into the daemon
#   dockerd_stop         stops exactly the daemon dockerd_start started (by PID;
#                        its containerd goes with it) after removing its
#                        containers and networks, then removes its directory
#   DOCKER               the client to use: Debian's /usr/bin/docker, which
#                        matches the daemon (another client may be earlier in PATH)
#
# Its containers get Docker's built-in default seccomp profile, as users' do.
# A user-defined network's gateway (.1) sits on a bridge in this machine's
# namespace: tests give their containers other addresses on an --internal
# network and never send to the .1.

DOCKER=/usr/bin/docker
DOCKERD_DIR=""
DOCKERD_PID=""

dockerd_start() {
	command -v dockerd >/dev/null 2>&1 || { echo "# dockerd is missing; apt-get install docker.io" >&2; return 1; }
	# Short path: the socket path must fit in sun_path (108 bytes).
	DOCKERD_DIR=$(mktemp -d /tmp/csd.XXXXXX) || return 1
	dockerd --data-root "$DOCKERD_DIR/data" --exec-root "$DOCKERD_DIR/exec" \
		--pidfile "$DOCKERD_DIR/pid" -H "unix://$DOCKERD_DIR/sock" \
		--iptables=false --ip6tables=false --bridge=none --ip-forward=false \
		--ip-masq=false --userland-proxy=false \
		>"$DOCKERD_DIR/log" 2>&1 &
	DOCKERD_PID=$!
	DOCKER_HOST="unix://$DOCKERD_DIR/sock"
	export DOCKER_HOST
	i=0
	while [ "$i" -lt 120 ]; do
		if "$DOCKER" info >/dev/null 2>&1; then
			return 0
		fi
		kill -0 "$DOCKERD_PID" 2>/dev/null || break
		sleep 0.5
		i=$((i + 1))
	done
	echo "# dockerd did not start; its log:" >&2
	sed 's/^/#   /' "$DOCKERD_DIR/log" | tail -20 >&2
	return 1
}

dockerd_load() {
	podman save "$1" | "$DOCKER" load >/dev/null
}

dockerd_stop() {
	[ -n "$DOCKERD_PID" ] || return 0
	# Containers and user-defined networks first: a network's bridge lives in
	# this machine's namespace and would outlive the daemon.
	ids=$("$DOCKER" ps -aq 2>/dev/null)
	# shellcheck disable=SC2086 # one ID a word
	[ -z "$ids" ] || "$DOCKER" rm -f $ids >/dev/null 2>&1
	ids=$("$DOCKER" network ls -q --filter type=custom 2>/dev/null)
	# shellcheck disable=SC2086 # one ID a word
	[ -z "$ids" ] || "$DOCKER" network rm $ids >/dev/null 2>&1
	kill -TERM "$DOCKERD_PID" 2>/dev/null
	i=0
	while kill -0 "$DOCKERD_PID" 2>/dev/null && [ "$i" -lt 60 ]; do
		sleep 0.5
		i=$((i + 1))
	done
	kill -KILL "$DOCKERD_PID" 2>/dev/null
	wait "$DOCKERD_PID" 2>/dev/null
	DOCKERD_PID=""
	# Whatever the daemon left mounted below its own directory, deepest first.
	awk -v d="$DOCKERD_DIR/" 'index($2, d) == 1 { print $2 }' /proc/mounts | sort -r |
		while read -r m; do umount -l "$m" 2>/dev/null; done
	rm -rf "$DOCKERD_DIR"
	DOCKERD_DIR=""
}
