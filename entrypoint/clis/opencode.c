/* opencode (opencode-ai): everything the init knows of it.
 * docs/cli-wiring.md has the evidence for each name. */
#include "entrypoint/clis/cli.h"

#include <stdio.h>

#include "entrypoint/clis/operator.h"

/* Managed: every permission allowed (opencode 1.18 asks for some, such as a
 * path outside the workspace, and nobody is there to answer), unless the
 * operator chose: OPENCODE_PERMISSION, or a "permission" key in the config
 * files opencode reads. */
static int managed_autonomy(const struct cli_start *s, struct command *plan, struct cs_error *err)
{
	const char *custom = env_lookup(s->envp, "OPENCODE_CONFIG");
	char global[PATH_MAX + 48];

	if (env_lookup(s->envp, "OPENCODE_PERMISSION")) {
		command_note(plan, "opencode: the operator's OPENCODE_PERMISSION is kept");
		return 0;
	}
	snprintf(global, sizeof(global), "%s/.config/opencode/opencode.json", s->user->home);
	if (cli_config_has_key(global, "permission", false) || (custom && cli_config_has_key(custom, "permission", false)) ||
	    cli_config_has_key("opencode.json", "permission", false)) {
		command_note(plan, "opencode: the operator's config chooses the permissions (%s, OPENCODE_CONFIG or ./opencode.json), none set",
			     global);
		return 0;
	}
	if (command_add_var(plan, "OPENCODE_PERMISSION", "{\"*\":\"allow\"}", err))
		return -1;
	command_note(plan, "opencode: OPENCODE_PERMISSION={\"*\":\"allow\"} (runs its model's commands without asking)");
	return 0;
}

const struct cli cli_opencode = {
	.name = "opencode",
	.profile_section = "opencode",
	/* The AI SDK providers read these, without their API's /v1 */
	.base_url_vars = { "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL" },
	.base_url_suffix = "/v1",
	.wire = cli_plan_nothing,
	.quiet_vars = { { "OPENCODE_DISABLE_AUTOUPDATE", "1" }, { "OPENCODE_DISABLE_MODELS_FETCH", "1" },
			{ "OPENCODE_DISABLE_SHARE", "1" } },
	.managed_autonomy = managed_autonomy,
	.interactive_note = "opencode keeps its own permission prompts (interactive)",
	/* opencode has no nested sandbox */
	.nested_sandbox = cli_plan_nothing,
	.decide_sandbox = cli_no_nested_sandbox,
	/* ~/.config/opencode and ~/.local/share/opencode (XDG): no variable of its own */
	.state_var = "",
	.state_dir = "",
	.first_run = cli_first_run_nothing,
	.first_run_plan = "",
};
