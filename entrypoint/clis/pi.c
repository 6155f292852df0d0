/* pi (@mariozechner/pi-coding-agent): everything the init knows of it.
 * docs/cli-wiring.md has the evidence for each name. */
#include "entrypoint/clis/cli.h"

#include <unistd.h>

/* pi takes base URLs only from models.json or an extension: the image's
 * extension (image/pi-base-url.js) reads the two base-URL variables. */
static int wire(const struct cli_start *s, struct command *plan, struct cs_error *err)
{
	if (access(s->pi_extension, R_OK) != 0) {
		cs_warn("%s is missing, so pi keeps its own provider URLs; copy image/pi-base-url.js there", s->pi_extension);
		return 0;
	}
	return command_insert_arg(plan, "-e", NULL, err) || command_insert_arg(plan, s->pi_extension, NULL, err) ? -1 : 0;
}

static int managed_autonomy(const struct cli_start *s, struct command *plan, struct cs_error *err)
{
	(void)s, (void)err;
	command_note(plan, "pi runs its model's commands as it is (it has no approval step)");
	return 0;
}

const struct cli cli_pi = {
	.name = "pi",
	.profile_section = "pi",
	.base_url_vars = { "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL" },
	.wire = wire,
	.quiet_vars = { { "PI_OFFLINE", "1" }, { "PI_TELEMETRY", "0" }, { "PI_SKIP_VERSION_CHECK", "1" } },
	.managed_autonomy = managed_autonomy,
	.interactive_note = "pi as it is",
	.nested_sandbox = cli_plan_nothing,
	.decide_sandbox = cli_no_nested_sandbox,
	/* pi keeps its state in ~/.pi/agent already */
	.state_var = "",
	.state_dir = "",
	.first_run = cli_first_run_nothing,
	.first_run_plan = "",
};
