/* Gemini CLI (@google/gemini-cli): everything the init knows of it.
 * docs/cli-wiring.md has the evidence for each name. */
#include "entrypoint/clis/cli.h"

#include <stdio.h>
#include <unistd.h>

#include "entrypoint/clis/operator.h"

/* System-defaults settings the image installs (image/gemini-*.json):
 * Gemini's lowest-precedence settings layer, so the operator's own user,
 * workspace and system settings win.  Both select the API-key login (the
 * "gateway" login that GOOGLE_GEMINI_BASE_URL alone picks is refused in
 * 0.61's -p mode: "Invalid auth method selected"); the managed one also
 * turns usage statistics and update checks off. */
#define GEMINI_DEFAULTS_DIR "/usr/local/share/cli-sandbox"
#define GEMINI_MANAGED_DEFAULTS GEMINI_DEFAULTS_DIR "/gemini-managed.json"
#define GEMINI_GATEWAY_DEFAULTS GEMINI_DEFAULTS_DIR "/gemini-gateway.json"

static int wire(const struct cli_start *s, struct command *plan, struct cs_error *err)
{
	const char *file = s->cfg->profile == CS_PROFILE_MANAGED ? GEMINI_MANAGED_DEFAULTS : GEMINI_GATEWAY_DEFAULTS;

	if (env_lookup(s->envp, "GEMINI_CLI_SYSTEM_DEFAULTS_PATH"))
		return 0;  /* the operator's own defaults */
	if (access(file, R_OK) != 0) {
		cs_warn("%s is missing, so gemini may not log in at the gateway; copy image/%s there",
			file, file + sizeof(GEMINI_DEFAULTS_DIR));
		return 0;
	}
	return command_add_var(plan, "GEMINI_CLI_SYSTEM_DEFAULTS_PATH", file, err);
}

/* Managed: --yolo (every tool call approved) and the workspace trusted
 * (an untrusted folder turns --yolo back into prompts), unless the operator
 * chose by flag, by variable or in their settings. */
static int managed_autonomy(const struct cli_start *s, struct command *plan, struct cs_error *err)
{
	static const char *const flags[] = { "--yolo", "-y", "--approval-mode" };
	char path[PATH_MAX + 32];

	if (env_lookup(s->envp, "GEMINI_CLI_TRUST_WORKSPACE"))
		command_note(plan, "gemini: the operator's GEMINI_CLI_TRUST_WORKSPACE is kept");
	else if (command_add_var(plan, "GEMINI_CLI_TRUST_WORKSPACE", "true", err))
		return -1;
	else
		command_note(plan, "gemini: GEMINI_CLI_TRUST_WORKSPACE=true (an untrusted folder turns --yolo into prompts)");
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (cli_has_option(s->argv, flags[i])) {
			command_note(plan, "gemini: the operator's %s is kept, no approval mode set", flags[i]);
			return 0;
		}
	snprintf(path, sizeof(path), "%s/.gemini/settings.json", s->user->home);
	if (cli_config_has_key(path, "defaultApprovalMode", false) ||
	    cli_config_has_key("/etc/gemini-cli/settings.json", "defaultApprovalMode", false)) {
		command_note(plan, "gemini: the operator's settings choose the approval mode (%s), none set", path);
		return 0;
	}
	if (command_insert_arg(plan, "--yolo", NULL, err))
		return -1;
	command_note(plan, "gemini: --yolo (runs its model's commands without asking)");
	return 0;
}

const struct cli cli_gemini = {
	.name = "gemini",
	.profile_section = "gemini",
	.base_url_vars = { "GOOGLE_GEMINI_BASE_URL" },
	.wire = wire,
	/* telemetry is off by default; usage statistics and updates are in the
	 * managed defaults file */
	.quiet_vars = { { "GEMINI_CLI_NO_RELAUNCH", "true" } },
	.managed_autonomy = managed_autonomy,
	.interactive_note = "gemini keeps its own approval prompts and folder trust (interactive)",
	/* gemini's own sandbox runs docker or podman: none inside the container */
	.nested_sandbox = cli_plan_nothing,
	.decide_sandbox = cli_no_nested_sandbox,
	/* ~/.gemini: no variable names it */
	.state_var = "",
	.state_dir = "",
	.first_run = cli_first_run_nothing,
	.first_run_plan = "",
};
