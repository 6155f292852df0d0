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

/* codex -c KEY=… / --config KEY=… / -cKEY=… / --config=KEY=…: the text
 * after KEY's '=' (or after KEY and a blank), or NULL. */
static const char *config_arg_value(char *const argv[], const char *key)
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
			if (strncmp(v, key, klen) == 0 && (v[klen] == '=' || v[klen] == ' ')) {
				v += klen;
				while (*v == ' ')
					v++;
				return *v == '=' ? v + 1 : v;
			}
		}
	}
	return NULL;
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
	if (config_arg_value(argv, key)) {
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

/* The nested sandbox the operator chose, and whether it needs user
 * namespaces (every codex sandbox but danger-full-access runs its commands
 * through bubblewrap, which builds one). */
struct sandbox_choice {
	char who[PATH_MAX + 64];   /* "the operator's -s", "sandbox_mode in PATH" */
	char mode[64];             /* "workspace-write", "none", ... */
	bool needs_userns;
};

static bool set_choice(struct sandbox_choice *c, const char *mode, const char *what)
{
	snprintf(c->who, sizeof(c->who), "the operator's %s", what);
	cli_plain_value(mode, c->mode, sizeof(c->mode));
	if (!c->mode[0])  /* "-s" with no value: codex refuses it; say so, need nothing */
		snprintf(c->mode, sizeof(c->mode), "(no value)");
	c->needs_userns = strcmp(c->mode, "danger-full-access") != 0 && strcmp(c->mode, "(no value)") != 0;
	return true;
}

/* cli_config_values: stops at the first value that needs user namespaces. */
static bool config_mode(const char *value, void *arg)
{
	struct sandbox_choice *c = arg;

	snprintf(c->mode, sizeof(c->mode), "%s", value[0] ? value : "(no value)");
	c->needs_userns = strcmp(c->mode, "danger-full-access") != 0;
	return c->needs_userns;
}

static bool config_choice(struct sandbox_choice *c, const char *path)
{
	c->mode[0] = '\0';
	cli_config_values(path, "sandbox_mode", config_mode, c);
	if (!c->mode[0])
		return false;
	snprintf(c->who, sizeof(c->who), "sandbox_mode in %s", path);
	return true;
}

/* In codex's own order of precedence: flags, then -c, then the config files
 * (a -p profile's file, the user's config.toml, the system's). */
static bool operator_sandbox(const struct cli_start *s, const struct command *plan, struct sandbox_choice *c)
{
	static const char *const bypass[] = { "--dangerously-bypass-approvals-and-sandbox", "--yolo" };
	char path[PATH_MAX + 32];
	const char *v;

	for (size_t i = 0; i < sizeof(bypass) / sizeof(bypass[0]); i++)
		if (cli_has_option(s->argv, bypass[i]))
			return set_choice(c, "danger-full-access", bypass[i]);
	/* "Route approval requests through automatic review using the
	 * workspace-write sandbox" (codex 0.171 --help): whatever sandbox_mode says. */
	if (cli_has_option(s->argv, "--approve-for-me"))
		return set_choice(c, "workspace-write", "--approve-for-me");
	if ((v = cli_option_value(s->argv, "-s", "--sandbox")))
		return set_choice(c, v, cli_has_option(s->argv, "--sandbox") ? "--sandbox" : "-s");
	/* Removed from codex (0.171 refuses it: "unexpected argument"), so it
	 * asks for no sandbox that could run; codex's own error says why. */
	if (cli_has_option(s->argv, "--full-auto")) {
		set_choice(c, "danger-full-access", "--full-auto");
		snprintf(c->mode, sizeof(c->mode), "none: codex 0.171 refuses --full-auto");
		return true;
	}
	if ((v = config_arg_value(s->argv, "sandbox_mode")))
		return set_choice(c, v, "-c sandbox_mode");
	if ((v = cli_option_value(s->argv, "-p", "--profile"))) {
		const char *home = command_env_value(plan, s->envp, "CODEX_HOME");

		snprintf(path, sizeof(path), "%s/%s.config.toml", home && home[0] ? home : s->user->home, v);
		if (!strchr(v, '/') && config_choice(c, path))
			return true;
	}
	user_config(path, sizeof(path), s, plan);
	if (config_choice(c, path))
		return true;
	for (size_t i = 0; i < sizeof(system_configs) / sizeof(system_configs[0]); i++)
		if (config_choice(c, system_configs[i]))
			return true;
	return false;
}

/* Both profiles: codex's own sandbox is decided at start, after the drop, by
 * userns_probe: workspace-write where a user namespace can be built,
 * danger-full-access where it cannot (rather than a sandbox that silently
 * runs nothing).  The operator's own choice is kept; when it needs user
 * namespaces and the init's filter denies them, the start stops here (78)
 * instead of a codex that runs nothing and exits 0, and with
 * CLI_SANDBOX_ALLOW_USERNS=true the probe must pass at start. */
static int nested_sandbox(const struct cli_start *s, struct command *plan, struct cs_error *err)
{
	struct sandbox_choice c;

	if (operator_sandbox(s, plan, &c)) {
		snprintf(plan->sandbox_mode, sizeof(plan->sandbox_mode), "%s", c.mode);
		snprintf(plan->sandbox_choice, sizeof(plan->sandbox_choice), "%.255s", c.who);
		if (!c.needs_userns) {
			command_note(plan, "codex: sandbox left to %s (%s)", c.who, c.mode);
			snprintf(plan->sandbox, sizeof(plan->sandbox), "codex sandbox: %s, %.200s (no probe: it needs no user namespace)",
				 plan->sandbox_mode, plan->sandbox_choice);
			return 0;
		}
		if (!s->cfg->allow_userns)
			return cs_fail(err, CS_EXIT_CONFIG,
				       "codex: %s asks for codex's %s sandbox, which needs user namespaces, and the init's "
				       "seccomp filter denies them; set CLI_SANDBOX_ALLOW_USERNS=true under an engine whose "
				       "seccomp profile allows unshare (podman's default does, Docker's does not), or give "
				       "codex -s danger-full-access (the container is the sandbox)", c.who, c.mode);
		command_note(plan, "codex: sandbox left to %s (%s); it needs user namespaces: a start stops (78) "
			     "unless the user-namespace probe passes after the drop", c.who, c.mode);
		plan->sandbox_needs_userns = true;
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

static int decide_sandbox(struct command *plan, const struct userns_probe *probe, struct cs_error *err)
{
	const char *mode;

	if (plan->sandbox_needs_userns) {
		if (!probe->ok)
			return cs_fail(err, CS_EXIT_CONFIG,
				       "codex: %s asks for codex's %s sandbox, which needs user namespaces, and with "
				       "CLI_SANDBOX_ALLOW_USERNS=true they still cannot be made here (%s): the engine's seccomp "
				       "profile denies unshare (Docker's default does); run under an engine whose seccomp "
				       "allows it (podman's default), or give codex -s danger-full-access",
				       plan->sandbox_choice, plan->sandbox_mode, probe->evidence);
		snprintf(plan->sandbox, sizeof(plan->sandbox), "codex sandbox: %s, %.120s (user-namespace probe passed: %.100s)",
			 plan->sandbox_mode, plan->sandbox_choice, probe->evidence);
		return 0;
	}
	if (probe->ok && plan->sandbox_default_on_ok) {
		drop_sandbox_args(plan);
		mode = "codex's own default";
	} else {
		mode = probe->ok ? "workspace-write" : "danger-full-access";
		snprintf(plan->inserted[plan->sandbox_arg], sizeof(plan->inserted[0]), "sandbox_mode=\"%s\"", mode);
	}
	snprintf(plan->sandbox, sizeof(plan->sandbox), "codex sandbox: %s (user-namespace probe %s: %s)", mode,
		 probe->ok ? "passed" : "failed", probe->evidence);
	return 0;
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
	/* codex 0.171's exec sends Authorization from CODEX_API_KEY only; the
	 * TUI's login takes OPENAI_API_KEY (first_run below). */
	.key_copies = { { "CODEX_API_KEY", "OPENAI_API_KEY" } },
	.managed_autonomy = managed_autonomy,
	.interactive_note = "codex keeps its own approval prompts (interactive)",
	.nested_sandbox = nested_sandbox,
	.decide_sandbox = decide_sandbox,
	/* codex refuses to start without its CODEX_HOME folder */
	.state_var = "CODEX_HOME",
	.state_dir = ".codex",
	.first_run = first_run,
	.first_run_plan = "on a terminal with OPENAI_API_KEY or CODEX_API_KEY: writes an API-key login to "
			  "$CODEX_HOME/auth.json when there is none",
};
