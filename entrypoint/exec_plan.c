#include "entrypoint/exec_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *const default_argv[] = { "claude", NULL };

/* Per CLI: the variable that points it at a model gateway, and the CLI's own
 * documented switches for traffic that could never pass the managed
 * firewall anyway (telemetry, error reports, update checks). */
struct cli_wiring {
	const char *name;
	const char *base_url_var;
	const char *quiet[6][2];
};

static const struct cli_wiring wirings[] = {
	{ "claude", "ANTHROPIC_BASE_URL",
	  { { "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1" }, { "DISABLE_TELEMETRY", "1" },
	    { "DISABLE_ERROR_REPORTING", "1" }, { "DISABLE_AUTOUPDATER", "1" } } },
	{ "codex", "OPENAI_BASE_URL", { { NULL, NULL } } },
	{ "pi", "OPENAI_BASE_URL", { { NULL, NULL } } },
};

static int add_var(struct exec_plan *plan, const char *name, const char *value,
		   struct cs_error *err)
{
	struct env_var *v;

	if (plan->n_added == EXEC_MAX_ADDED)
		return cs_fail(err, CS_EXIT_CONFIG, "too many environment variables to add");
	v = &plan->added[plan->n_added++];
	v->name = name;
	snprintf(v->value, sizeof(v->value), "%s", value);
	return 0;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

int exec_plan_build(const struct cs_config *cfg, const struct cs_user *user,
		    char *const envp[], char *const argv[], struct exec_plan *plan,
		    struct cs_error *err)
{
	const struct cli_wiring *w = NULL;
	char ids[16];

	memset(plan, 0, sizeof(*plan));
	plan->argv = (argv && argv[0]) ? argv : default_argv;
	if (!plan->argv[0][0])
		return cs_fail(err, CS_EXIT_CONFIG, "the command is an empty string; name the CLI to run, for example claude");
	for (size_t i = 0; i < sizeof(wirings) / sizeof(wirings[0]); i++)
		if (strcmp(base_name(plan->argv[0]), wirings[i].name) == 0)
			w = &wirings[i];
	plan->cli = w ? w->name : NULL;

	/* Identity from the passwd entry: the command must not see root's HOME. */
	snprintf(ids, sizeof(ids), "%u", (unsigned)user->uid);
	if (add_var(plan, "HOME", user->home, err) ||
	    add_var(plan, "USER", user->name[0] ? user->name : ids, err) ||
	    add_var(plan, "LOGNAME", user->name[0] ? user->name : ids, err))
		return -1;
	if (!w)
		return 0;
	if (cfg->has_url && !env_lookup(envp, w->base_url_var) &&
	    add_var(plan, w->base_url_var, cfg->url.text, err))
		return -1;
	if (cfg->profile != CS_PROFILE_MANAGED)
		return 0;
	for (size_t i = 0; i < 6 && w->quiet[i][0]; i++)
		if (!env_lookup(envp, w->quiet[i][0]) &&
		    add_var(plan, w->quiet[i][0], w->quiet[i][1], err))
			return -1;
	return 0;
}

void exec_environ_free(char **env)
{
	for (char **e = env; e && *e; e++)
		free(*e);
	free(env);
}

char **exec_plan_environ(const struct exec_plan *plan, char *const envp[])
{
	size_t n = 0, out = 0;
	char **env;

	while (envp && envp[n])
		n++;
	env = calloc(n + plan->n_added + 1, sizeof(char *));
	if (!env)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		bool replaced = false;

		for (size_t k = 0; k < plan->n_added; k++) {
			size_t len = strlen(plan->added[k].name);

			if (strncmp(envp[i], plan->added[k].name, len) == 0 && envp[i][len] == '=')
				replaced = true;
		}
		if (!replaced && !(env[out++] = strdup(envp[i])))
			goto fail;
	}
	for (size_t k = 0; k < plan->n_added; k++)
		if (asprintf(&env[out++], "%s=%s", plan->added[k].name, plan->added[k].value) < 0) {
			env[--out] = NULL;
			goto fail;
		}
	return env;
fail:
	exec_environ_free(env);
	return NULL;
}
