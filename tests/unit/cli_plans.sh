#!/bin/sh
# The CLI table's part of the dry-run plan, for claude, codex, pi, gemini, opencode and any
# other command, in both profiles, with a range of operator flags and config
# files: the command line, the added environment, the first-run line and the
# autonomy line of each `--dry-run` must equal golden/cli_plans.txt.  The
# golden file was written by the init before the CLI table (issue 22), so a
# change in what a CLI gets shows up here as a diff.
#
# usage: cli_plans.sh PATH-TO-cli-sandbox-init GOLDEN-FILE [--write]
set -u
BIN=$1
GOLDEN=$2
. "$(cd "$(dirname "$0")/.." && pwd)/lib/tap.sh"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
mkdir -p "$W/bin" "$W/codexcfg" "$W/codexapr" "$W/claudecfg"
for c in claude codex pi gemini opencode bash; do
	printf '#!/bin/sh\nexit 0\n' > "$W/bin/$c"
	chmod 755 "$W/bin/$c"
done
printf 'model = "x"\nsandbox_mode = "workspace-write"\n' > "$W/codexcfg/config.toml"
printf 'approval_policy = "on-request"\n' > "$W/codexapr/config.toml"
printf 'sandbox_mode = "read-only" # a -p profile\n' > "$W/codexapr/ro.config.toml"
printf '{ "permissions": { "defaultMode": "plan" } }\n' > "$W/claudecfg/settings.json"

# One case: NAME ENV... -- COMMAND...; prints the plan's CLI lines.
plan() {
	name=$1
	shift
	envs=""
	while [ "$1" != "--" ]; do envs="$envs $1"; shift; done
	shift
	for p in managed interactive; do
		skip=false
		[ "$p" = managed ] || skip=true
		echo "== $name ($p)"
		# shellcheck disable=SC2086
		env -i PATH="$W/bin:/usr/bin:/bin" CLI_SANDBOX_USER=4242:4242 HOME=/nonexistent \
			CLI_SANDBOX_EGRESS_PROFILE=$p TASK_AGENT_MODEL_BASE_URL=http://192.0.2.10:4000/v1 \
			SKIP_EGRESS_FIREWALL=$skip $envs \
			"$BIN" --dry-run "$@" > "$W/out" 2>&1 </dev/null
		rc=$?
		[ $rc = 0 ] || { echo "exit $rc"; grep -v 'warning:' "$W/out" | sed "s|$W|WORK|g"; }
		sed -n -e "s|$W|WORK|g" -e '/^# command:/,/^table inet/p' "$W/out" | grep -v '^table inet'
	done
}

cases() {
	plan default --
	plan claude -- claude
	plan claude-p -- claude -p hello
	plan claude-pm -- claude --permission-mode plan -p hi
	plan claude-pm-eq -- claude --permission-mode=acceptEdits
	plan claude-dsp -- claude --dangerously-skip-permissions
	plan claude-adsp -- claude --allow-dangerously-skip-permissions
	plan claude-settings -- claude --settings /x.json
	plan claude-cfg "CLAUDE_CONFIG_DIR=$W/claudecfg" -- claude
	plan claude-url ANTHROPIC_BASE_URL=http://198.51.100.9/ -- claude
	plan claude-attribution CLAUDE_CODE_ATTRIBUTION_HEADER=1 -- claude -p x
	plan claude-after-dd -- claude -- --permission-mode plan
	plan claude-path -- /usr/local/bin/claude -p x
	plan codex -- codex
	plan codex-exec -- codex exec "fix it"
	plan codex-a -- codex -a on-request exec x
	plan codex-a-eq -- codex --ask-for-approval=never
	plan codex-afm -- codex --approve-for-me exec x
	plan codex-s -- codex -s workspace-write exec x
	plan codex-sro -- codex -sread-only
	plan codex-sandbox -- codex --sandbox=workspace-write
	plan codex-c-sandbox -- codex -c sandbox_mode=workspace-write exec x
	plan codex-c-sandbox2 -- codex --config=sandbox_mode=read-only
	plan codex-c-approval -- codex -c approval_policy=on-failure
	plan codex-c-approval2 -- codex -capproval_policy=untrusted
	plan codex-fullauto -- codex --full-auto exec x
	plan codex-yolo -- codex --yolo
	plan codex-dbas -- codex --dangerously-bypass-approvals-and-sandbox exec x
	plan codex-cfg "CODEX_HOME=$W/codexcfg" -- codex exec x
	plan codex-cfgapr "CODEX_HOME=$W/codexapr" -- codex exec x
	plan codex-url -- codex -c openai_base_url=http://198.51.100.9 exec x
	plan codex-after-dd -- codex exec -- -s workspace-write
	plan codex-afm-userns CLI_SANDBOX_ALLOW_USERNS=true -- codex --approve-for-me exec x
	plan codex-s-userns CLI_SANDBOX_ALLOW_USERNS=true -- codex -s workspace-write exec x
	plan codex-s-dfa -- codex -s danger-full-access exec x
	plan codex-c-dfa -- codex -c 'sandbox_mode="danger-full-access"' exec x
	plan codex-cfg-userns "CODEX_HOME=$W/codexcfg" CLI_SANDBOX_ALLOW_USERNS=true -- codex exec x
	plan codex-profile "CODEX_HOME=$W/codexapr" -- codex -p ro exec x
	plan codex-key "OPENAI_API_KEY=$KEY" -- codex exec x
	plan codex-key-own "OPENAI_API_KEY=$KEY" CODEX_API_KEY=sk-own-codex-key -- codex exec x
	plan codex-key-codex-only CODEX_API_KEY=sk-own-codex-key -- codex exec x
	plan pi -- pi
	plan pi-p -- pi -p hello
	plan pi-url OPENAI_BASE_URL=http://198.51.100.9 -- pi -p hi
	plan bash -- bash -c 'echo hi'
	plan gemini -- gemini -p hello
	plan gemini-yolo -- gemini --approval-mode=auto_edit
	plan gemini-defaults GEMINI_CLI_SYSTEM_DEFAULTS_PATH=/etc/mine.json GEMINI_CLI_TRUST_WORKSPACE=false -- gemini
	plan opencode -- opencode run hello
	plan opencode-perm 'OPENCODE_PERMISSION={"bash":"ask"}' -- opencode
	plan opencode-url ANTHROPIC_BASE_URL=http://198.51.100.9/v1 -- opencode run x
}

# A key that must never be printed: the plans above hold it for codex.
KEY=sk-wire32-secret-7f3a9c
cases > "$W/plans.txt"
if [ "${3:-}" = --write ]; then
	cp "$W/plans.txt" "$GOLDEN"
	echo "# wrote $GOLDEN"
fi
if diff -u "$GOLDEN" "$W/plans.txt" > "$W/diff"; then
	t_pass "every CLI's dry-run plan equals $(basename "$GOLDEN") ($(grep -c '^==' "$GOLDEN") plans)"
else
	t_fail "a CLI's dry-run plan changed" "$(cat "$W/diff")"
fi

# codex gets OPENAI_API_KEY's value as CODEX_API_KEY (its exec reads only
# that), and no form of the dry-run shows the value: every output searched.
for p in managed interactive; do
	for form in --dry-run --dry-run=json --dry-run=nft; do
		skip=false
		[ "$p" = managed ] || skip=true
		env -i PATH="$W/bin:/usr/bin:/bin" CLI_SANDBOX_USER=4242:4242 HOME=/nonexistent \
			CLI_SANDBOX_EGRESS_PROFILE=$p TASK_AGENT_MODEL_BASE_URL=http://192.0.2.10:4000/v1 \
			SKIP_EGRESS_FIREWALL=$skip OPENAI_API_KEY=$KEY \
			"$BIN" "$form" codex exec x > "$W/key.out" 2>&1 </dev/null
		rc=$?
		if [ $rc != 0 ]; then
			t_fail "codex $form ($p) exits 0" "exit $rc: $(cat "$W/key.out")"
		elif grep -q -F -e "$KEY" -e "${KEY#sk-}" "$W/key.out"; then
			t_fail "codex $form ($p) never prints OPENAI_API_KEY's value" "$(grep -F -e "${KEY#sk-}" "$W/key.out")"
		elif [ "$form" = --dry-run=json ] &&
			! tr -d ' \n\t' < "$W/key.out" | grep -q '"env_copied":{"CODEX_API_KEY":"OPENAI_API_KEY"}'; then
			t_fail "codex $form ($p) names the copy in exec.env_copied" "$(cat "$W/key.out")"
		else
			t_pass "codex $form ($p): the key's value is not in the output"
		fi
	done
done
t_done
