#!/bin/sh
# `cli-sandbox demo` (issue 34), run as a person runs it, under podman (rootful, as root) and a
# private dockerd (tests/dockerd.sh: as root, and as a uid with no account that reaches the
# daemon through its socket's group). Each run is judged twice: by the demo's --json, and
# independently, by the folder it keeps (--keep): hello.txt and its owner, the model's log
# (the tool results it received: the connections' times, the environment, the identity), the
# init's block-log lines and ruleset digest on the run's stderr, and the key's value nowhere.
# Then nothing may be left: no container or network of the demo's names, no file in the TMPDIR
# it was given but the folder it named (and with no --keep, not even that).
#
# Rootless podman is skipped with its reason: it needs an account with a /etc/subuid range,
# and this test creates no account on the machine.
#
# usage: sh tests/image/demo.sh   (root; images: CLI_SANDBOX_TEST_IMAGE, default
#        localhost/cli-sandbox:claude, and CLI_SANDBOX_GATEWAY_IMAGE, default
#        localhost/cli-sandbox-gateway:latest; both from image/build.sh)
# environment: SKIP_PODMAN=1 / SKIP_DOCKER=1 leave one half out.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$ROOT/tests/dockerd.sh"
. "$ROOT/tests/lib/tap.sh"
IMAGE=${CLI_SANDBOX_TEST_IMAGE:-localhost/cli-sandbox:claude}
GWIMAGE=${CLI_SANDBOX_GATEWAY_IMAGE:-localhost/cli-sandbox-gateway:latest}
CS=$ROOT/host/cli-sandbox
WORK=$(mktemp -d /tmp/cli-sandbox-demo-test.XXXXXX)
chmod 755 "$WORK"
# A key of "the person's": a unique value, so that a search for it finds only this test's.
KEY=sk-ant-demo-test-$$-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
LIMITS="--ulimit nofile=1024:1024 --ulimit nproc=1000:1000"

cleanup() {
	if [ -n "$DOCKERD_PID" ]; then dockerd_stop; fi
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
bail() { echo "Bail out! $*"; exit 1; }

[ "$(id -u)" -eq 0 ] || bail "run as root"
for c in podman setpriv python3; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing (tests/install-deps.sh)"
done
podman image exists "$IMAGE" || bail "no image $IMAGE (sh image/build.sh --cli claude)"
podman image exists "$GWIMAGE" || bail "no gateway image $GWIMAGE (sh image/build.sh --cli gateway)"
BIMAGE=${CLI_SANDBOX_BROKER_IMAGE:-${GWIMAGE%-gateway:*}-broker:latest}
podman image exists "$BIMAGE" || bail "no key broker image $BIMAGE (sh image/build.sh --cli broker)"

# jget FILE EXPR: a value of the demo's JSON (python3: the test's own reader, not the script's).
jget() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
v = eval(sys.argv[2], {}, {"d": d})
print(json.dumps(v) if isinstance(v, (dict, list, bool)) or v is None else v)' "$1" "$2" 2>/dev/null
}

# demo LABEL ENGINE-CLIENT KEY-MODE [PREFIX...]: run the demo with --json (and --keep unless
# KEY-MODE ends in -nokeep) in a TMPDIR of its own, as PREFIX (setpriv) when given, and judge
# it. KEY-MODE: person (ANTHROPIC_API_KEY exported) or throwaway (none).
demo() {
	label=$1 client=$2 keymode=$3
	shift 3
	tmp=$WORK/$label-tmp home=$WORK/$label-home
	mkdir -p "$tmp" "$home"
	keep=--keep
	case $keymode in *-nokeep) keep='' keymode=${keymode%-nokeep} ;; esac
	if [ $# -gt 0 ]; then chown "$PERSON_UID:$PERSON_UID" "$tmp" "$home"; fi
	{
		echo "HOME=$home"
		echo "TMPDIR=$tmp"
		echo "PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"
		echo "CLI_SANDBOX_GATEWAY_IMAGE=$GWIMAGE"
		echo "CLI_SANDBOX_BROKER_IMAGE=$BIMAGE"
		echo "CLI_SANDBOX_ENGINE_ARGS=$LIMITS"
		[ "$client" != podman ] || echo "CLI_SANDBOX_ENGINE_GLOBAL_ARGS=--runtime runc"
		[ "$client" != docker ] || echo "DOCKER_HOST=$DOCKER_HOST"
		[ "$keymode" != person ] || echo "ANTHROPIC_API_KEY=$KEY"
	} >"$WORK/$label.env"
	chmod 644 "$WORK/$label.env"
	t0=$(date +%s)
	# env -i: only what a person's shell would have; the key from the file, not a command line.
	# shellcheck disable=SC2046 # one VAR=VALUE a line (no value has a space but the engine args)
	(IFS='
'; exec "$@" env -i $(cat "$WORK/$label.env") sh "$CS" --engine "$client" --image "$IMAGE" demo claude --json $keep) \
		</dev/null >"$WORK/$label.json" 2>"$WORK/$label.err"
	rc=$?
	secs=$(($(date +%s) - t0))
	echo "# $label: exit $rc in ${secs}s (measured here: the demo's own figure is in its JSON)"
	sed 's/^/#   /' "$WORK/$label.err" | tail -n 5
	# The JSON's verdicts.
	ok "$label: demo exits 0 and its JSON says ok" sh -c "[ $rc -eq 0 ] && [ \"\$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[\"ok\"])' '$WORK/$label.json')\" = True ]"
	for s in written refused no-key capabilities ruleset; do
		ok "$label: JSON step $s holds" [ "$(jget "$WORK/$label.json" "[x['ok'] for x in d['steps'] if x['name'] == '$s'][0]")" = true ]
	done
	ok "$label: JSON says which key stood in ($keymode)" [ "$(jget "$WORK/$label.json" "d['key']")" = "$([ "$keymode" = person ] && echo yours || echo throwaway)" ]
	folder=$(jget "$WORK/$label.json" "d['folder']")
	digest=$(jget "$WORK/$label.json" "d['ruleset_sha256']")
	names=$(jget "$WORK/$label.json" "' '.join(d['names'])")
	echo "# $label: the demo's own time: $(jget "$WORK/$label.json" "d['seconds']") s"
	# Nothing of the demo's left in the engine.
	left=''
	for n in $names; do
		if [ "$client" = podman ]; then
			podman container exists "$n" 2>/dev/null && left="$left container:$n"
			podman network exists "$n" 2>/dev/null && left="$left network:$n"
			ids=$(podman ps -aq --filter "label=io.cli-sandbox.demo=$n")
		else
			"$DOCKER" inspect "$n" >/dev/null 2>&1 && left="$left container:$n"
			"$DOCKER" network inspect "$n" >/dev/null 2>&1 && left="$left network:$n"
			ids=$("$DOCKER" ps -aq --filter "label=io.cli-sandbox.demo=$n")
		fi
		[ -z "$ids" ] || left="$left labelled:$ids"
	done
	ok "$label: no container or network of the demo's names ($names) is left" [ -n "$names" ] && [ -z "$left" ]
	# Files: only the folder it named, in the TMPDIR it was given.
	others=$(find "$tmp" -mindepth 1 -maxdepth 1 ! -path "$folder" | wc -l)
	ok "$label: no file in its TMPDIR but the folder it named" [ "$others" = 0 ] && [ "${folder#"$tmp"/}" != "$folder" ]
	ok "$label: nothing written in the home it was run with" [ -z "$(find "$home" -mindepth 1 | head -n 1)" ]
	if [ -z "$keep" ]; then
		ok "$label: without --keep, the folder is gone too" [ ! -e "$folder" ]
		return 0
	fi
	# Independently, from the kept folder.
	ws=$folder/workspace
	ok "$label: hello.txt is in the workspace with the model's text" [ "$(cat "$ws/hello.txt" 2>/dev/null)" = "hello from the sandbox" ]
	ok "$label: hello.txt belongs to uid $OWNER" [ "$(stat -c %u "$ws/hello.txt" 2>/dev/null)" = "$OWNER" ]
	ml=$folder/model.log
	probe=$(jget "$WORK/$label.json" "d['probe']")
	for dest in 203.0.113.10:443 169.254.169.254:80 "$probe"; do
		line=$(grep "^result connect | connect $dest rc=" "$ml" | head -n 1)
		r=$(printf '%s\n' "$line" | sed -n 's/.* rc=\([0-9]*\) .*/\1/p')
		ms=$(printf '%s\n' "$line" | sed -n 's/.* ms=\([0-9]*\) .*/\1/p')
		e=${line#* error=}
		ok "$label: the model received $dest failed at once (rc=$r, ${ms}ms, $e)" \
			sh -c "[ -n '$r' ] && [ '$r' != 0 ] && [ '$r' != 124 ] && [ '${ms:-9999}' -lt 2000 ]"
		reset_and_blocked() { [ "$e" = "Connection refused" ] && blocked; }
		blocked() {
			grep -q "cli-sandbox-init: blocked: .*refused tcp to ${dest%:*} port ${dest#*:} " "$folder/cli.err" &&
				grep -q "^result connect | .*refused tcp to ${dest%:*} port ${dest#*:} " "$ml"
		}
		if [ "$dest" = "$probe" ]; then
			# On the sandbox's own network: routed, so only the firewall can have refused it.
			ok "$label: $dest (on the sandbox's network) got the firewall's reset" [ "$e" = "Connection refused" ]
			ok "$label: ... and is in the init's block log (stderr, and the agent's blocked.log)" blocked
		elif [ "$e" = "Network is unreachable" ]; then
			echo "# $label: $dest had no route (the gateway's network is internal): refused by the kernel, before the firewall"
		else
			ok "$label: $dest got the firewall's reset and is in its block log" reset_and_blocked
		fi
	done
	ok "$label: the model received the env step's output" grep -q '^result env | grep rc=' "$ml"
	if [ "$keymode" = person ]; then
		ok "$label: the person's key is nowhere in the folder (model log, CLI output) nor the JSON" \
			sh -c "! grep -rqF '$KEY' '$folder' '$WORK/$label.json' '$WORK/$label.err'"
		ok "$label: ... but the model did get a key on its calls (from the key broker)" grep -q '"key":true' "$ml"
	else
		ok "$label: no throwaway key in the folder nor the JSON" \
			sh -c "! grep -rq 'demo-throwaway-[0-9a-f]' '$folder' '$WORK/$label.json' '$WORK/$label.err'"
	fi
	ok "$label: the sandbox's environment had the run's token in ANTHROPIC_API_KEY (the key broker's)" \
		grep -q '^result env | ANTHROPIC_API_KEY=csbt_[0-9a-f]\{64\}$' "$ml"
	ok "$label: the model received uid $INSIDE" grep -Eq "^result identity \| uid=$INSIDE([( ]|$)" "$ml"
	ok "$label: the model received every capability set 0" \
		[ "$(grep -c '^result identity | Cap\(Inh\|Prm\|Eff\|Bnd\|Amb\):[[:space:]]*0\{16\}$' "$ml")" = 5 ]
	ok "$label: the JSON's digest is the init's 'firewall up' line's" \
		sh -c "[ -n '$digest' ] && grep -q 'cli-sandbox-init: firewall up: .*sha256=$digest' '$folder/cli.err'"
	rm -rf "$folder"
}

# ---------------------------------------------------------------- podman, rootful, as root
if [ "${SKIP_PODMAN:-0}" = 1 ]; then
	echo "# SKIP_PODMAN=1: the podman half is left out"
else
	PERSON_UID='' OWNER=1000 INSIDE=1000
	demo podman-root-person podman person
	demo podman-root-throwaway podman throwaway-nokeep
	if [ -s /etc/subuid ]; then
		t_skip "rootless podman: needs an account with a /etc/subuid range, and this test creates no account on the machine"
	else
		t_skip "rootless podman: /etc/subuid has no range here, so no user can run podman rootless on this machine"
	fi
fi

# ---------------------------------------------------------------- dockerd: root, and a user of the socket's group
if [ "${SKIP_DOCKER:-0}" = 1 ]; then
	echo "# SKIP_DOCKER=1: the dockerd half is left out"
else
	dockerd_start || bail "the private dockerd did not start"
	t0=$(date +%s)
	if ! dockerd_load "$IMAGE" || ! dockerd_load "$BIMAGE"; then bail "cannot load the images into dockerd"; fi
	echo "# images loaded into dockerd in $(($(date +%s) - t0))s"
	PERSON_UID='' OWNER=1000 INSIDE=1000
	demo docker-root-throwaway docker throwaway
	# The person: a uid no account here has, in the socket's group.
	PERSON_UID=$(t_free_id 4321)
	if ! { chgrp "$PERSON_UID" "$DOCKERD_DIR/sock" && chmod 660 "$DOCKERD_DIR/sock" && chmod 755 "$DOCKERD_DIR"; }; then
		bail "cannot give the daemon's socket to group $PERSON_UID"
	fi
	OWNER=$PERSON_UID INSIDE=$PERSON_UID
	demo "docker-uid$PERSON_UID-person" docker person setpriv "--reuid=$PERSON_UID" "--regid=$PERSON_UID" --clear-groups --
fi
t_done
