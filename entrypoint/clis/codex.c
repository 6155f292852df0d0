/* Codex CLI (@openai/codex): everything the init knows of it.
 * docs/cli-wiring.md has the evidence for each name. */
#include "entrypoint/clis/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "entrypoint/clis/operator.h"
#include "entrypoint/clis/state_file.h"

/* Placeholder of codex's sandbox value until the probe ran: not a valid
 * mode, so a start that skipped the decision would stop codex, not run it
 * with a wrong sandbox. */
#define SANDBOX_PENDING "sandbox_mode=\"<decided at start by a user-namespace probe>\""

static const char *const system_configs[] = { "/etc/codex/config.toml", "/etc/codex/managed_config.toml" };

/* codex -c KEY=… / --config KEY=… / -cKEY=… / --config=KEY=… */
static bool has_config_arg(char *const argv[], const char *key)
{
	size_t klen = strlen(key);

	for (char *const *a = argv + 1; *a; a++) {
		const char *v = NULL;

		if ((strcmp(*a, "-c") == 0 || strcmp(*a, "--config") == 0) && a[1])
			v = a[1];
		else if (strncmp(*a, "--config=", 9) == 0)
			v = *a + 9;
		else if (strncmp(*a, "-c", 2) == 0 && (*a)[2] != '\0')
			v = *a + 2;
		if (v) {
			while (*v == ' ')
				v++;
			if (strncmp(v, key, klen) == 0 && (v[klen] == '=' || v[klen] == ' '))
				return true;
		}
	}
	return false;
}

/* $CODEX_HOME/config.toml as the command will see it. */
static void user_config(char *out, size_t len, const struct cli_start *s, const struct command *plan)
{
	cli_config_path(out, len, plan, s->envp, "CODEX_HOME", s->user->home, ".codex", "config.toml");
}

/* The operator's choice of key in argv or a config file, or NULL. */
static const char *operator_choice(char *const argv[], const char *key, const char *const opts[],
				   const char *config, char *buf, size_t len)
{
	for (const char *const *o = opts; *o; o++)
		if (cli_has_option(argv, *o)) {
			snprintf(buf, len, "the operator's %s", *o);
			return buf;
		}
	if (has_config_arg(argv, key)) {
		snprintf(buf, len, "the operator's -c %s", key);
		return buf;
	}
	if (cli_config_has_key(config, key, true)) {
		snprintf(buf, len, "%s in %s", key, config);
		return buf;
	}
	for (size_t i = 0; i < sizeof(system_configs) / sizeof(system_configs[0]); i++)
		if (cli_config_has_key(system_configs[i], key, true)) {
			snprintf(buf, len, "%s in %s", key, system_configs[i]);
			return buf;
		}
	return NULL;
}

/* Managed: approval_policy="never", unless the operator chose. */
static int managed_autonomy(const struct cli_start *s, struct command *plan, struct cs_error *err)
{
	static const char *const approval_opts[] = { "-a", "--ask-for-approval", "--approve-for-me",
						     "--dangerously-bypass-approvals-and-sandbox", "--full-auto", "--yolo", NULL };
	char config[PATH_MAX + 32], why[PATH_MAX + 64];
	const char *kept;

	user_config(config, sizeof(config), s, plan);
	if ((kept = operator_choice(s->argv, "approval_policy", approval_opts, config, why, sizeof(why)))) {
		command_note(plan, "codex: approvals left to %s", kept);
		return 0;
	}
	if (command_insert_arg(plan, "-c", NULL, err) ||
	    command_insert_arg(plan, "approval_policy=\"never\"", NULL, err))
		return -1;
	command_note(plan, "codex: -c approval_policy=\"never\" (runs its model's commands without asking)");
	return 0;
}

static int interactive_autonomy(const struct cli_start *s, struct command *plan, struct cs_error *err)
{
	(void)s, (void)err;
	command_note(plan, "codex keeps its own approval prompts (interactive)");
	return 0;
}

/* Both profiles: codex's own sandbox is decided at start, after the drop, by
 * userns_probe: workspace-write where a user namespace can be built,
 * danger-full-access where it cannot (rather than a sandbox that silently
 * runs nothing).  The operator's own choice is left alone. */
static int nested_sandbox(const struct cli_start *s, struct command *plan, struct cs_error *err)
{
	static const char *const sandbox_opts[] = { "-s", "--sandbox", "--dangerously-bypass-approvals-and-sandbox",
						    "--full-auto", "--yolo", NULL };
	char config[PATH_MAX + 32], why[PATH_MAX + 64];
	const char *kept;

	user_config(config, sizeof(config), s, plan);
	if ((kept = operator_choice(s->argv, "sandbox_mode", sandbox_opts, config, why, sizeof(why)))) {
		command_note(plan, "codex: sandbox left to %s", kept);
		snprintf(plan->sandbox, sizeof(plan->sandbox), "codex sandbox: %s (no probe)", kept);
		return 0;
	}
	if (command_insert_arg(plan, "-c", NULL, err) || command_insert_arg(plan, SANDBOX_PENDING, NULL, err))
		return -1;
	plan->sandbox_arg = (int)plan->n_inserted - 1;
	plan->sandbox_default_on_ok = s->cfg->profile != CS_PROFILE_MANAGED;
	command_note(plan, "codex: sandbox_mode decided at start by a user-namespace probe after the drop "
		     "(%s if it works, danger-full-access if not)",
		     plan->sandbox_default_on_ok ? "codex's own default" : "workspace-write");
	return 0;
}

/* Takes "-c" and the placeholder out of argv: codex keeps its default. */
static void drop_sandbox_args(struct command *plan)
{
	char *value = plan->inserted[plan->sandbox_arg];
	size_t k = 0, n = 0;

	while (plan->argv[n])
		n++;
	while (k < n && plan->argv[k] != value)
		k++;
	if (k == n || k < 1)
		return;
	/* argv[k - 1] is the "-c": move the rest, NULL included, two down */
	memmove(&plan->argv[k - 1], &plan->argv[k + 1], (n - k) * sizeof(plan->argv[0]));
}

static void decide_sandbox(struct command *plan, const struct userns_probe *probe)
{
	const char *mode;

	if (probe->ok && plan->sandbox_default_on_ok) {
		drop_sandbox_args(plan);
		mode = "codex's own default";
	} else {
		mode = probe->ok ? "workspace-write" : "danger-full-access";
		snprintf(plan->inserted[plan->sandbox_arg], sizeof(plan->inserted[0]), "sandbox_mode=\"%s\"", mode);
	}
	snprintf(plan->sandbox, sizeof(plan->sandbox), "codex sandbox: %s (user-namespace probe %s: %s)", mode,
		 probe->ok ? "passed" : "failed", probe->evidence);
}

enum first_run_result first_run_codex(const char *dir, const char *api_key, char *what, size_t len)
{
	static const char name[] = "auth.json";
	enum first_run_result res = FIRST_RUN_LEFT_ALONE;
	json_t *root;
	int dirfd;

	if (faccessat(AT_FDCWD, dir, F_OK, 0) == 0) {
		dirfd = state_dir_open(dir, what, len);
		if (dirfd < 0)
			return res;
	} else {
		snprintf(what, len, "%s does not exist", dir);
		return res;
	}
	/* Any auth.json, a symlink or a broken one included, is a login of its own. */
	if (faccessat(dirfd, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT) {
		close(dirfd);
		return FIRST_RUN_UNCHANGED;
	}
	root = json_pack("{s:s, s:s}", "auth_mode", "apikey", "OPENAI_API_KEY", api_key);
	if (!root)
		snprintf(what, len, "the key is not valid UTF-8");
	else if (state_file_write(dirfd, dir, name, root, 0600, true, what, len) == 0) {
		snprintf(what, len, "wrote codex's API-key login (the given key) to %s/%s", dir, name);
		res = FIRST_RUN_WRITTEN;
	} else if (errno == EEXIST) {
		res = FIRST_RUN_UNCHANGED;  /* written meanwhile by someone else: theirs */
	}
	json_decref(root);
	close(dirfd);
	return res;
}

/* The TUI ignores OPENAI_API_KEY until an API-key login exists: it opens at
 * "Sign in with ChatGPT". */
static enum first_run_result first_run(const char *dir, char *const env[], char *what, size_t len)
{
	const char *key = state_key_of(env, "OPENAI_API_KEY", "CODEX_API_KEY");

	return key ? first_run_codex(dir, key, what, len) : FIRST_RUN_UNCHANGED;
}

const struct cli cli_codex = {
	.name = "codex",
	.profile_section = "codex",
	/* codex 0.171 reads its base URL only from config (-c beats config.toml). */
	.base_url_config = "openai_base_url",
	.wire = cli_plan_nothing,
	.quiet_args = { "analytics.enabled=false", "features.plugins=false",
			"check_for_update_on_startup=false", "feedback.enabled=false" },
	.managed_autonomy = managed_autonomy,
	.interactive_autonomy = interactive_autonomy,
	.nested_sandbox = nested_sandbox,
	.decide_sandbox = decide_sandbox,
	/* codex refuses to start without its CODEX_HOME folder */
	.state_var = "CODEX_HOME",
	.state_dir = ".codex",
	.first_run = first_run,
	.first_run_plan = "on a terminal with OPENAI_API_KEY or CODEX_API_KEY: writes an API-key login to "
			  "$CODEX_HOME/auth.json when there is none",
};
