/* Autonomy and nested sandboxes of the three CLIs (docs/cli-wiring.md,
 * "Autonomy and codex's sandbox").
 *
 * Managed profile: nobody is there to approve a command and the container is
 * the sandbox, so claude gets --permission-mode bypassPermissions (plus the
 * setting that skips its start-up confirmation dialog) and codex gets
 * approval_policy="never"; pi runs commands as it is.  Interactive profile:
 * the CLIs keep their own approval prompts.  Both: codex's own sandbox is
 * decided at start, after the drop, by userns_probe: workspace-write where a
 * user namespace can be built, danger-full-access where it cannot (rather than
 * a sandbox that silently runs nothing).
 *
 * The operator always wins: their own flags (claude --permission-mode,
 * --dangerously-skip-permissions, --settings; codex -a, -s, -c approval_policy
 * / sandbox_mode, --dangerously-bypass-approvals-and-sandbox) and config files
 * (claude's user and managed settings with a defaultMode; codex's
 * $CODEX_HOME/config.toml and /etc/codex/ files with those keys) leave the
 * matching choice alone. */
#ifndef CLI_SANDBOX_CLI_AUTONOMY_H
#define CLI_SANDBOX_CLI_AUTONOMY_H

#include "entrypoint/command.h"
#include "entrypoint/userns_probe.h"

/* Plans the arguments for cli ("claude", "codex", "pi") and writes what it
 * set or left alone into plan->autonomy.  codex's sandbox gets a placeholder
 * argument that cli_autonomy_decide_sandbox fills in. */
int cli_autonomy_wire(const struct cs_config *cfg, const char *cli, char *const envp[],
		      char *const argv[], const struct cs_user *user, struct command *plan,
		      struct cs_error *err);

/* After the drop, just before the command starts: applies the probe's
 * result to the placeholder and records the decision in plan->sandbox. */
void cli_autonomy_decide_sandbox(struct command *plan, const struct userns_probe *probe);

/* True when the file at path is a regular file (no symlink followed at the
 * last step) whose text holds key as a TOML key at the start of a line
 * (toml) or as a JSON member name "key" (json).  Missing or unreadable: false. */
bool cli_config_has_key(const char *path, const char *key, bool toml);

#endif
