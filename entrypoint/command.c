#include "entrypoint/command.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "entrypoint/first_run.h"

static char *const default_argv[] = { CS_DEFAULT_COMMAND, NULL };

static bool argv_mentions(char *const argv[], const char *word)
{
	for (char *const *a = argv; *a; a++)
		if (strstr(*a, word))
			return true;
	return false;
}

/* The row's gateway wiring (both profiles, with a URL) and its quiet
 * settings (managed). */
static int wire(const struct cli_start *s, const struct cli *c, struct command *cmd, struct cs_error *err)
{
	if (s->cfg->has_url) {
		char url[MODEL_URL_MAX + 16];

		snprintf(url, sizeof(url), "%s%s", s->cfg->url.text, c->base_url_suffix ? c->base_url_suffix : "");
		for (size_t i = 0; i < 3 && c->base_url_vars[i]; i++)
			if (!env_lookup(s->envp, c->base_url_vars[i]) &&
			    command_add_var(cmd, c->base_url_vars[i], url, err))
				return -1;
		/* The URL's characters are validated: no quote can end the TOML string. */
		if (c->base_url_config && !argv_mentions(s->argv, c->base_url_config)) {
			char kv[MODEL_URL_MAX + 32];

			snprintf(kv, sizeof(kv), "%s=\"%s\"", c->base_url_config, s->cfg->url.text);
			if (command_insert_arg(cmd, "-c", NULL, err) || command_insert_arg(cmd, kv, NULL, err))
				return -1;
		}
		if (c->wire(s, cmd, err))
			return -1;
	}
	if (s->cfg->profile != CS_PROFILE_MANAGED)
		return 0;
	for (size_t i = 0; i < CLI_MAX_VARS && c->quiet_vars[i][0]; i++)
		if (!env_lookup(s->envp, c->quiet_vars[i][0]) &&
		    command_add_var(cmd, c->quiet_vars[i][0], c->quiet_vars[i][1], err))
			return -1;
	for (size_t i = 0; i < CLI_MAX_VARS && c->quiet_args[i]; i++)
		if (command_insert_arg(cmd, "-c", NULL, err) || command_insert_arg(cmd, c->quiet_args[i], NULL, err))
			return -1;
	return 0;
}

/* Where the CLI keeps its state (entrypoint/first_run.h): inside the folder
 * the host script mounts, unless the operator named another. */
static int add_state_dir(struct command *cmd, const struct cli *c, const struct cs_user *user,
			 char *const envp[], struct cs_error *err)
{
	char dir[sizeof(user->home) + 16];
	const char *var = cli_state_dir(c, user->home, dir, sizeof(dir));

	return var && !env_lookup(envp, var) ? command_add_var(cmd, var, dir, err) : 0;
}

/* A key under the second name the CLI reads, when only the first is set
 * (both profiles, with or without a URL: the CLI needs its key either way). */
static int copy_keys(const struct cli *c, struct command *cmd, char *const envp[], struct cs_error *err)
{
	for (size_t i = 0; i < CLI_MAX_KEY_COPIES && c->key_copies[i][0]; i++)
		if (!env_lookup(envp, c->key_copies[i][0]) && env_lookup(envp, c->key_copies[i][1]) &&
		    command_copy_var(cmd, c->key_copies[i][0], c->key_copies[i][1], err))
			return -1;
	return 0;
}

/* Everything the row plans: wiring, keys, state folder, autonomy, nested sandbox. */
static int plan_cli(const struct cli_start *s, const struct cli *c, struct command *cmd, struct cs_error *err)
{
	if (wire(s, c, cmd, err) || copy_keys(c, cmd, s->envp, err) || add_state_dir(cmd, c, s->user, s->envp, err))
		return -1;
	if (s->cfg->profile == CS_PROFILE_MANAGED) {
		if (c->managed_autonomy(s, cmd, err))
			return -1;
	} else {
		command_note(cmd, "%s", c->interactive_note);
	}
	return c->nested_sandbox(s, cmd, err);
}

int command_build(const struct cs_config *cfg, const struct cs_user *user,
		  char *const envp[], char *const argv_in[], const char *pi_extension,
		  struct command *cmd, struct cs_error *err)
{
	char *const *argv = (argv_in && argv_in[0]) ? argv_in : default_argv;
	const struct cli_start start = { cfg, user, envp, argv, pi_extension };
	size_t argc = 0, k = 0;
	char ids[16];

	/* The counts, not the whole 120 KiB: an entry is written in full when
	 * it is added, and untouched room never becomes resident in PID 1. */
	cmd->argv = NULL;
	cmd->cli = NULL;
	cmd->n_added = cmd->n_inserted = 0;
	cmd->autonomy[0] = cmd->sandbox[0] = '\0';
	cmd->sandbox_arg = -1;
	cmd->sandbox_default_on_ok = cmd->sandbox_needs_userns = false;
	cmd->sandbox_mode[0] = cmd->sandbox_choice[0] = '\0';
	if (!argv[0][0])
		return cs_fail(err, CS_EXIT_CONFIG, "the command is an empty string; name the CLI to run, for example " CS_DEFAULT_COMMAND);
	cmd->cli = cli_find(argv[0]);

	/* Identity from the passwd entry: the command must not see root's HOME. */
	snprintf(ids, sizeof(ids), "%u", (unsigned)user->uid);
	if (command_add_var(cmd, "HOME", user->home, err) ||
	    command_add_var(cmd, "USER", user->name[0] ? user->name : ids, err) ||
	    command_add_var(cmd, "LOGNAME", user->name[0] ? user->name : ids, err))
		return -1;
	if (cmd->cli && plan_cli(&start, cmd->cli, cmd, err))
		return -1;

	while (argv[argc])
		argc++;
	cmd->argv = calloc(argc + cmd->n_inserted + 1, sizeof(char *));
	if (!cmd->argv)
		return cs_fail(err, CS_EXIT_OSERR, "out of memory planning the command");
	cmd->argv[k++] = argv[0];
	for (size_t i = 0; i < cmd->n_inserted; i++)
		cmd->argv[k++] = cmd->inserted[i];
	for (size_t i = 1; i < argc; i++)
		cmd->argv[k++] = argv[i];
	return 0;
}

bool command_wants_probe(const struct command *cmd)
{
	return cmd->cli && (cmd->sandbox_arg >= 0 || cmd->sandbox_needs_userns);
}

int command_decide_sandbox(struct command *cmd, const struct userns_probe *probe, struct cs_error *err)
{
	int rc;

	if (!command_wants_probe(cmd))
		return 0;
	rc = cmd->cli->decide_sandbox(cmd, probe, err);
	cmd->sandbox_arg = -1;
	cmd->sandbox_needs_userns = false;
	return rc;
}

void command_free(struct command *cmd)
{
	free(cmd->argv);
	cmd->argv = NULL;
}

void command_environ_free(char **env)
{
	for (char **e = env; e && *e; e++)
		free(*e);
	free(env);
}

char **command_environ(const struct command *cmd, char *const envp[])
{
	size_t n = 0, out = 0;
	char **env;

	while (envp && envp[n])
		n++;
	env = calloc(n + cmd->n_added + 1, sizeof(char *));
	if (!env)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		bool replaced = false;

		for (size_t k = 0; k < cmd->n_added; k++) {
			size_t len = strlen(cmd->added[k].name);

			if (strncmp(envp[i], cmd->added[k].name, len) == 0 && envp[i][len] == '=')
				replaced = true;
		}
		if (!replaced && !(env[out++] = strdup(envp[i])))
			goto fail;
	}
	for (size_t k = 0; k < cmd->n_added; k++) {
		const struct env_var *v = &cmd->added[k];
		/* A copy reads the source in envp, the environment the plan was built from. */
		const char *value = v->copy_of ? env_lookup(envp, v->copy_of) : v->value;

		if (value && asprintf(&env[out++], "%s=%s", v->name, value) < 0) {
			env[--out] = NULL;
			goto fail;
		}
	}
	return env;
fail:
	command_environ_free(env);
	return NULL;
}

/* Kernels before 5.9 have no close_range(2): close them one by one, up to
 * the descriptor limit. */
static int close_fds_slowly(void)
{
	long max = sysconf(_SC_OPEN_MAX);

	if (errno != ENOSYS)
		return -1;
	for (long fd = 3; fd < (max > 0 ? max : 1024); fd++)
		(void)close((int)fd);
	return 0;
}

int command_exec(char *const argv[], char *const envp[], struct cs_error *err)
{
	int e;

	if (!argv || !argv[0] || !argv[0][0])
		return cs_fail(err, CS_EXIT_NOTFOUND, "no command to run; give COMMAND or leave it out for " CS_DEFAULT_COMMAND);
	/* Nothing the launcher leaked reaches the command: every descriptor
	 * above stderr is closed (an inherited socket would be a connection
	 * the firewall never judged).  Closed, not close-on-exec, so that the
	 * exec's own failure path below writes only to stderr. */
	if (close_range(3, ~0U, 0) != 0 && close_fds_slowly() != 0)
		return cs_fail(err, CS_EXIT_OSERR, "cannot close the inherited file descriptors (%s); the command is not started", strerror(errno));
	/* glibc searches the PATH of the init's own environment, which the
	 * command's environment inherits unchanged (command_build adds no PATH). */
	execvpe(argv[0], argv, envp);
	e = errno;
	if (e == ENOENT || e == ENOTDIR)
		return cs_fail(err, CS_EXIT_NOTFOUND, strchr(argv[0], '/') ? "'%.200s' does not exist; fix the command's path"
						      : "'%.200s' was not found in PATH; install it in the image or fix PATH", argv[0]);
	if (e == EACCES)
		return cs_fail(err, CS_EXIT_NOEXEC, "'%.200s' is not executable by the sandbox user (%s); make it executable (chmod +x) and readable", argv[0], strerror(e));
	if (e == EAGAIN)
		return cs_fail(err, CS_EXIT_NOEXEC, "cannot execute '%.200s': the sandbox user is over its RLIMIT_NPROC (too many processes of that uid); raise the limit (docker run --ulimit nproc=...) or stop the user's other processes", argv[0]);
	return cs_fail(err, CS_EXIT_NOEXEC, "cannot execute '%.200s' (%s); check that it is a program for this machine", argv[0], strerror(e));
}
