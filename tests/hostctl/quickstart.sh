#!/bin/sh
# quickstart.sh CTL: every line `cli-sandbox-ctl quickstart` prints runs as printed, as
# tests/host/readme.sh runs the README's: the runner (host/cli-sandbox, as `cli-sandbox` on
# PATH) against a fake podman that records what it was asked and has the images
# localhost/cli-sandbox:latest and :claude only. The lines name the endpoints added, the CLI
# whose image exists, and the key variable that is set, never its value. Also `init` and
# `version`/`platform` --json against the same fake engine.
set -u
unset CDPATH
# Nothing here may send a packet: as root, a network namespace with only loopback.
if [ "$(id -u)" = 0 ] && [ -z "${CS_HOST_TEST_NETNS:-}" ] && command -v unshare >/dev/null 2>&1; then
	# shellcheck disable=SC2016 # expanded by the inner shell
	CS_HOST_TEST_NETNS=1 exec unshare --net sh -c 'ip link set lo up 2>/dev/null; exec sh "$0" "$@"' "$0" "$@"
fi
ctl=$1
repo=$(cd -P -- "$(dirname -- "$0")/../.." && pwd -P) || exit 1
T=$(mktemp -d) || exit 1
trap 'rm -rf -- "$T"' EXIT
# shellcheck disable=SC1091  # tests/lib/tap.sh: the shared TAP helper
. "$repo/tests/lib/tap.sh"

mkdir -p "$T/bin" "$T/home" "$T/ws" || exit 1
chmod 755 "$T" && chmod 777 "$T/ws" || exit 1
cat >"$T/bin/podman" <<'FAKE'
#!/bin/sh
# a fake podman: images latest and claude exist; a run or build is recorded
case "$1 $2" in
"image inspect")
	for a in "$@"; do last=$a; done
	case $last in
	localhost/cli-sandbox:latest | localhost/cli-sandbox:claude) echo sha256:1111111111111111111111111111111111111111111111111111111111111111; exit 0 ;;
	*) exit 1 ;;
	esac ;;
"version --format") echo 4.3.1; exit 0 ;;
esac
for a in "$@"; do
	case $a in
	run | build) printf '%s\n' "$@" >>"$FAKE_ARGS"; exit 0 ;;
	network) echo 10.88.0.1; exit 0 ;;
	esac
done
exit 0
FAKE
chmod +x "$T/bin/podman"
ln -s "$repo/host/cli-sandbox" "$T/bin/cli-sandbox"
ln -s "$ctl" "$T/bin/cli-sandbox-ctl"
KEY=sk-quickstart-$$-value

as_person() {  # as_person COMMAND-LINE: in a fresh environment with the key exported
	(
		cd "$T/ws" || exit 1
		env -i PATH="$T/bin:/usr/bin:/bin" HOME="$T/home" FAKE_ARGS="$T/args" CLI_SANDBOX_ENGINE=podman \
			CLI_SANDBOX_HOST_ADDRESS=127.0.0.1 LOCAL_MODEL_KEY="$KEY" sh -c "$1" </dev/null
	)
}

as_person "cli-sandbox-ctl endpoints add local http://127.0.0.1:9/v1 --type ollama --model qwen3:8b --key-env LOCAL_MODEL_KEY --no-probe" >/dev/null
as_person "cli-sandbox-ctl endpoints add 'messages-server' http://127.0.0.1:9 --type anthropic --no-probe" >/dev/null
as_person "cli-sandbox-ctl endpoints add keyed http://127.0.0.1:9 --type anthropic --key-env LOCAL_MODEL_KEY --no-probe" >/dev/null
as_person "cli-sandbox-ctl endpoints use local" >/dev/null
as_person "cli-sandbox-ctl quickstart" >"$T/lines" 2>"$T/err"
ok "quickstart prints lines" [ -s "$T/lines" ]
ok "they name the engine" grep -q '^# engine: podman' "$T/lines"
ok "they name the key variable that is set" grep -q '^# key variables set.* LOCAL_MODEL_KEY' "$T/lines"
ok "they use the endpoints, with the CLI whose image exists" grep -qx 'cli-sandbox --engine podman --endpoint keyed --dry-run claude' "$T/lines"
ok "a run whose key goes through the missing key broker's image is a comment naming its build" \
	grep -qx '# claude to keyed needs the key broker.s image: sh image/build.sh --cli broker' "$T/lines"
ok "an endpoint without a key set is a comment naming the variable" \
	grep -qx '# claude to messages-server needs its key: export ANTHROPIC_API_KEY first (or add the endpoint again with --key-env VAR)' "$T/lines"
ok "a run that needs the missing gateway image is a comment naming its build" \
	grep -qx '# claude to local needs the gateway.s image: sh image/build.sh --cli gateway' "$T/lines"
# shellcheck disable=SC2016 # expanded by the inner shell
ok "no line for a CLI without its image" sh -c '! grep -q " codex\$" "$1"' _ "$T/lines"
# shellcheck disable=SC2016 # expanded by the inner shell
ok "no line holds the key's value" sh -c '! grep -rqF "$1" "$2/lines" "$2/err"' _ "$KEY" "$T"
n=0
while IFS= read -r line; do
	case $line in '#'* | '') continue ;; esac
	n=$((n + 1))
	rm -f "$T/args"
	as_person "$line" >"$T/out" 2>&1
	rc=$?
	if [ "$rc" -eq 0 ] && ! grep -qF "$KEY" "$T/out"; then
		t_pass "runs as printed: $line"
	else
		t_fail "runs as printed: $line (exit $rc)" "$(tail -5 "$T/out")"
	fi
done <"$T/lines"
ok "quickstart printed commands to run ($n)" [ "$n" -ge 3 ]
as_person "cli-sandbox-ctl quickstart --json" >"$T/json"
ok "quickstart --json is one object with the same lines" \
	python3 -c 'import json,sys; o=json.load(open(sys.argv[1])); assert o["engine"]=="podman" and "LOCAL_MODEL_KEY" in o["key_variables"] and o["lines"]' "$T/json"

as_person "cli-sandbox-ctl endpoints rm local" >"$T/out" 2>&1
# shellcheck disable=SC2016 # expanded by the inner shell
ok "endpoints rm: silent, the line gone, and the selection with it" \
	sh -c '[ ! -s "$1/out" ] && ! grep -q "^local " "$1/home/.config/cli-sandbox/endpoints" && [ ! -e "$1/home/.config/cli-sandbox/current" ]' _ "$T"
as_person "cli-sandbox-ctl endpoints use local" >"$T/out" 2>&1
rc=$?
# shellcheck disable=SC2016 # expanded by the inner shell
ok "endpoints use of a removed name: exit 2, named" sh -c '[ "$1" -eq 2 ] && grep -q "no endpoint named .local." "$2"' _ "$rc" "$T/out"
as_person "cli-sandbox endpoints list --json" >"$T/out" 2>&1
as_person "cli-sandbox-ctl endpoints list --json" >"$T/out2" 2>&1
ok "the runner's endpoints list --json and the program's agree on the same file" \
	python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); assert a==b, (a,b)' "$T/out" "$T/out2"

as_person "cli-sandbox-ctl init" >"$T/out" 2>&1
ok "init writes the config where CLI_SANDBOX_HOME points (here the default)" grep -q 'endpoints file' "$T/home/.config/cli-sandbox/config"
ok "the config names the one endpoints file" grep -qF "#   $T/home/.config/cli-sandbox/endpoints" "$T/home/.config/cli-sandbox/config"
as_person "cli-sandbox-ctl init" >"$T/out" 2>&1
rc=$?
# shellcheck disable=SC2016 # expanded by the inner shell
ok "init again refuses (exit 2), naming --force" sh -c '[ "$1" -eq 2 ] && grep -q -- "--force" "$2"' _ "$rc" "$T/out"
as_person "cli-sandbox-ctl init --force --json" >"$T/out" 2>&1
ok "init --force --json writes it again" grep -q '"config"' "$T/out"

as_person "cli-sandbox-ctl version --json" >"$T/out" 2>&1
ok "version --json: version, commit, the images present with their init" \
	python3 -c 'import json,sys; o=json.load(open(sys.argv[1])); assert o["version"] and o["commit"] and all(i["digest"].startswith("sha256:") and i["init"] for i in o["images"]) and [i["image"] for i in o["images"]]==["localhost/cli-sandbox:latest","localhost/cli-sandbox:claude"]' "$T/out"
as_person "cli-sandbox-ctl platform --json" >"$T/out" 2>&1
ok "platform --json: every fact with its meaning" \
	python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))["facts"]; n=[x["name"] for x in f]; assert all(x["meaning"] for x in f) and {"os","architecture","kernel","engine","mode","cgroup","user namespaces","seccomp","IA32 emulation","CAP_SYS_RESOURCE"} <= set(n), n' "$T/out"
as_person "cli-sandbox --version" >"$T/out" 2>&1
ok "the runner hands --version to cli-sandbox-ctl: version and commit" grep -q '^cli-sandbox [0-9.]* (commit [0-9a-f]' "$T/out"
# after the script's own options: --engine reaches the program (here without CLI_SANDBOX_ENGINE)
(cd "$T/ws" && env -i PATH="$T/bin:/usr/bin:/bin" HOME="$T/home" FAKE_ARGS="$T/args" \
	sh -c 'cli-sandbox --engine podman platform --json' </dev/null) >"$T/out" 2>&1
ok "options before platform: --engine podman reaches the program" \
	python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))["facts"]; e=[x for x in f if x["name"]=="engine"][0]; assert e["value"].startswith("podman"), e' "$T/out"
as_person "cli-sandbox --engine podman --version" >"$T/out" 2>&1
ok "options before --version: the runner hands it on" grep -q '^cli-sandbox [0-9.]* (commit [0-9a-f]' "$T/out"
# Every command the program's own --help lists (a new one is held to this without an edit here).
cmds=$(as_person "cli-sandbox-ctl --help" 2>/dev/null | sed -n 's/^  \([a-z][a-z-]*\)[ ,].*/\1/p')
# shellcheck disable=SC2016 # expanded by the inner shell
ok "the program's --help lists its commands" sh -c '[ "$(printf "%s\n" "$1" | wc -l)" -ge 10 ]' sh "$cmds"
for c in $cmds; do
	as_person "cli-sandbox-ctl $c --help" >"$T/out" 2>&1
	ok "$c --help" grep -q "^Usage: cli-sandbox-ctl $c" "$T/out"
done
t_done
