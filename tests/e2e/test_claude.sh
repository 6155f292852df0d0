#!/bin/sh
# End to end: the real Claude Code CLI from npm, started by cli-sandbox-init
# in a sandbox namespace with the managed profile, reaches a mock Anthropic
# Messages gateway in the gateway namespace and prints its reply.  The test
# sets no base URL: the init wires ANTHROPIC_BASE_URL itself.
# usage: test_claude.sh PATH-TO-cli-sandbox-init NPM-CACHE-DIR
# Exit 77 (skipped, with a message) only when the npm registry is unreachable.
set -u
INIT=$1
NPM_DIR=$2
CLAUDE_VERSION=${CLAUDE_CODE_VERSION:-2.1.197}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../netns/topology.sh"
trap topo_down EXIT INT TERM

if [ ! -x "$NPM_DIR/node_modules/.bin/claude" ] ||
	! grep -q "\"version\": \"$CLAUDE_VERSION\"" "$NPM_DIR/node_modules/@anthropic-ai/claude-code/package.json" 2>/dev/null; then
	mkdir -p "$NPM_DIR"
	if ! timeout 300 npm install --prefix "$NPM_DIR" --no-audit --no-fund --loglevel=error \
		"@anthropic-ai/claude-code@$CLAUDE_VERSION" >"$TOPO_DIR/npm.log" 2>&1; then
		if grep -qiE "ENOTFOUND|ECONNREFUSED|ETIMEDOUT|EAI_AGAIN|network" "$TOPO_DIR/npm.log"; then
			echo "SKIPPED: the npm registry cannot be reached, so the real Claude Code CLI cannot be installed"
			exit 77
		fi
		cat "$TOPO_DIR/npm.log"
		echo "not ok - npm install @anthropic-ai/claude-code@$CLAUDE_VERSION"
		exit 1
	fi
fi
chmod -R a+rX "$NPM_DIR"

topo_up || exit 1
cp "$HERE/../gateway/mock_gateway.py" "$TOPO_DIR/"
topo_spawn "$NS_GW" python3 "$TOPO_DIR/mock_gateway.py" --listen 192.0.2.1 --port 8080 \
	--reply "pong from the mock gateway" --log "$TOPO_DIR/gateway.log" --max-seconds 240
topo_wait_tcp "$NS_GW" 192.0.2.1 8080 || exit 1

# An unprivileged test user with a writable home, seen only by this test:
# passwd and group are bind-mounted in a private mount namespace.
home="$TOPO_DIR/home"
mkdir -p "$home"
chown 4242:4242 "$home"
grep -v '^sandboxer:' /etc/passwd > "$TOPO_DIR/passwd"
echo "sandboxer:x:4242:4242::$home:/bin/sh" >> "$TOPO_DIR/passwd"
grep -v '^sandboxer:' /etc/group > "$TOPO_DIR/group"
echo "sandboxer:x:4242:" >> "$TOPO_DIR/group"
chmod 644 "$TOPO_DIR/passwd" "$TOPO_DIR/group"

unshare --mount --propagation private sh -c '
	mount --bind "$1/passwd" /etc/passwd && mount --bind "$1/group" /etc/group &&
	exec ip netns exec "$2" env -i PATH="$3/node_modules/.bin:/usr/local/bin:/usr/bin:/bin" \
		CLI_SANDBOX_USER=sandboxer ANTHROPIC_API_KEY=sk-test-not-a-real-key \
		TASK_AGENT_MODEL_BASE_URL=http://192.0.2.1:8080 \
		timeout 180 "$4" -- claude -p "say pong"' sh "$TOPO_DIR" "$NS_SBX" "$NPM_DIR" "$INIT" \
	> "$TOPO_DIR/out" 2> "$TOPO_DIR/err" < /dev/null
rc=$?
echo "# stdout:"; sed 's/^/#   /' "$TOPO_DIR/out"
echo "# stderr:"; sed 's/^/#   /' "$TOPO_DIR/err" | head -20
echo "# gateway log:"; sed 's/^/#   /' "$TOPO_DIR/gateway.log" 2>/dev/null | head -20
ok "claude exits 0 (got $rc)" [ $rc -eq 0 ]
ok "claude printed the gateway's reply" grep -q "pong from the mock gateway" "$TOPO_DIR/out"
ok "the managed firewall was up" grep -q "firewall up: profile=managed" "$TOPO_DIR/err"
ok "the gateway served the Messages API" grep -q "POST /v1/messages" "$TOPO_DIR/gateway.log"
t_done
