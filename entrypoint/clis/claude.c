/* Claude Code (@anthropic-ai/claude-code): everything the init knows of it.
 * docs/cli-wiring.md has the evidence for each name. */
#include "entrypoint/clis/cli.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "entrypoint/clis/operator.h"
#include "entrypoint/clis/state_file.h"

/* The mode, and the setting that skips the "Bypass Permissions mode"
 * dialog a TUI start would otherwise stop at (flag settings count for it). */
#define CLAUDE_MODE "bypassPermissions"
#define CLAUDE_SETTINGS "{\"skipDangerousModePermissionPrompt\":true}"
#define CLAUDE_MANAGED_SETTINGS "/etc/claude-code/managed-settings.json"
/* claude remembers an approved key by its last 20 characters (its mU()). */
#define CLAUDE_KEY_TAIL 20

/* Claude Code puts a per-conversation attribution line first in the system
 * prompt, so no two conversations share a prefix and a local server's prefix
 * cache never hits; the variable turns the line off.  Anthropic's own API is
 * left as Claude Code has it.  Called only with a model URL. */
static int wire(const struct cli_start *s, struct command *plan, struct cs_error *err)
{
	if (env_lookup(s->envp, "CLAUDE_CODE_ATTRIBUTION_HEADER") || strcmp(s->cfg->url.host, "api.anthropic.com") == 0)
		return 0;
	return command_add_var(plan, "CLAUDE_CODE_ATTRIBUTION_HEADER", "0", err);
}

/* Managed: --permission-mode bypassPermissions, unless the operator chose
 * by flag, by their settings.json or by the managed settings. */
static int managed_autonomy(const struct cli_start *s, struct command *plan, struct cs_error *err)
{
	static const char *const flags[] = { "--permission-mode", "--dangerously-skip-permissions",
					     "--allow-dangerously-skip-permissions", "--settings" };
	char path[PATH_MAX + 32];

	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (cli_has_option(s->argv, flags[i])) {
			command_note(plan, "claude: the operator's %s is kept, no permission mode set", flags[i]);
			return 0;
		}
	cli_config_path(path, sizeof(path), plan, s->envp, "CLAUDE_CONFIG_DIR", s->user->home, ".claude", "settings.json");
	if (cli_config_has_key(path, "defaultMode", false) ||
	    cli_config_has_key(CLAUDE_MANAGED_SETTINGS, "defaultMode", false) ||
	    cli_config_has_key(CLAUDE_MANAGED_SETTINGS, "disableBypassPermissionsMode", false)) {
		command_note(plan, "claude: the operator's settings choose the permission mode (%s or %s), none set", path,
			     CLAUDE_MANAGED_SETTINGS);
		return 0;
	}
	if (command_insert_arg(plan, "--permission-mode", NULL, err) ||
	    command_insert_arg(plan, CLAUDE_MODE, NULL, err) ||
	    command_insert_arg(plan, "--settings", NULL, err) ||
	    command_insert_arg(plan, CLAUDE_SETTINGS, NULL, err))
		return -1;
	command_note(plan, "claude: --permission-mode %s --settings %s (runs its model's commands without asking)",
		     CLAUDE_MODE, CLAUDE_SETTINGS);
	return 0;
}

static bool array_has(json_t *a, const char *s)
{
	size_t i;
	json_t *v;

	json_array_foreach(a, i, v)
		if (json_is_string(v) && strcmp(json_string_value(v), s) == 0)
			return true;
	return false;
}

/* Adds tail to responses.approved unless either list holds it: a key the
 * person rejected stays rejected. */
static int approve_key(json_t *root, const char *tail, bool *changed)
{
	json_t *resp = json_object_get(root, "customApiKeyResponses");
	json_t *approved, *rejected;

	if (!resp) {
		resp = json_object();
		if (!resp || json_object_set_new(root, "customApiKeyResponses", resp))
			return -1;
	}
	if (!json_is_object(resp))
		return 0;  /* not the shape claude writes: leave it */
	approved = json_object_get(resp, "approved");
	rejected = json_object_get(resp, "rejected");
	if ((approved && !json_is_array(approved)) || (rejected && json_is_array(rejected) && array_has(rejected, tail)))
		return 0;
	if (!approved) {
		approved = json_array();
		if (!approved || json_object_set_new(resp, "approved", approved))
			return -1;
	}
	if (array_has(approved, tail))
		return 0;
	if (json_array_append_new(approved, json_string(tail)))
		return -1;
	*changed = true;
	return 0;
}

enum first_run_result first_run_claude(const char *dir, const char *api_key, char *what, size_t len)
{
	static const char name[] = ".claude.json";
	bool changed = false, onboarded = false, approved = false;
	enum first_run_result res = FIRST_RUN_LEFT_ALONE;
	json_t *root = NULL;
	mode_t mode;
	int dirfd = state_dir_open(dir, what, len);

	if (dirfd < 0)
		return FIRST_RUN_LEFT_ALONE;
	/* claude prefers a legacy .config.json when there is one: not ours to touch. */
	if (faccessat(dirfd, ".config.json", F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
		snprintf(what, len, "%s holds a legacy .config.json", dir);
		goto out;
	}
	if (state_file_read(dirfd, dir, name, &root, &mode, what, len))
		goto out;
	if (!json_object_get(root, "hasCompletedOnboarding")) {
		if (json_object_set_new(root, "hasCompletedOnboarding", json_true()))
			goto oom;
		changed = onboarded = true;
	}
	if (api_key && api_key[0]) {
		size_t n = strlen(api_key);

		if (approve_key(root, api_key + (n > CLAUDE_KEY_TAIL ? n - CLAUDE_KEY_TAIL : 0), &approved))
			goto oom;
		changed = changed || approved;
	}
	if (!changed) {
		res = FIRST_RUN_UNCHANGED;
		goto out;
	}
	if (state_file_write(dirfd, dir, name, root, mode, false, what, len))
		goto out;
	snprintf(what, len, "%s%s%s in %s/%s", onboarded ? "marked claude's onboarding complete" : "",
		 onboarded && approved ? " and " : "", approved ? "approved the given ANTHROPIC_API_KEY" : "",
		 dir, name);
	res = FIRST_RUN_WRITTEN;
	goto out;
oom:
	snprintf(what, len, "out of memory");
out:
	json_decref(root);
	close(dirfd);
	return res;
}

/* Onboarding checks api.anthropic.com, not the gateway, and the "use this
 * API key?" question's recommended answer leaves it logged out. */
static enum first_run_result first_run(const char *dir, char *const env[], char *what, size_t len)
{
	const char *key = state_key_of(env, "ANTHROPIC_API_KEY", NULL);

	/* A custom OAuth URL changes the file's name: that set-up is the operator's. */
	if ((key || state_key_of(env, "ANTHROPIC_AUTH_TOKEN", NULL)) && !env_lookup(env, "CLAUDE_CODE_CUSTOM_OAUTH_URL"))
		return first_run_claude(dir, key, what, len);
	return FIRST_RUN_UNCHANGED;
}

const struct cli cli_claude = {
	.name = "claude",
	.profile_section = "claude",
	.base_url_vars = { "ANTHROPIC_BASE_URL" },
	.wire = wire,
	.quiet_vars = { { "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1" }, { "DISABLE_TELEMETRY", "1" },
			{ "DISABLE_ERROR_REPORTING", "1" }, { "DISABLE_AUTOUPDATER", "1" } },
	.managed_autonomy = managed_autonomy,
	.interactive_note = "claude keeps its own approval prompts (interactive)",
	.nested_sandbox = cli_plan_nothing,
	.decide_sandbox = cli_no_nested_sandbox,
	/* claude keeps everything, its .claude.json included, in CLAUDE_CONFIG_DIR */
	.state_var = "CLAUDE_CONFIG_DIR",
	.state_dir = ".claude",
	.first_run = first_run,
	.first_run_plan = "on a terminal with ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN: adds hasCompletedOnboarding "
			  "and the key's approval to $CLAUDE_CONFIG_DIR/.claude.json when absent",
};
