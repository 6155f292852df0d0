#include "entrypoint/first_run.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/config.h"
#include "base/status.h"

const char *cli_state_dir(const struct cli *cli, const char *home, char *dir, size_t len)
{
	if (!cli || !cli->state_var[0])
		return NULL;
	snprintf(dir, len, "%s/%s", strcmp(home, "/") == 0 ? "" : home, cli->state_dir);
	return cli->state_var;
}

void first_run_prepare(const struct cli *cli, bool wired, char *const env[])
{
	const char *var, *dir, *home = env_lookup(env, "HOME");
	char what[PATH_MAX + 256] = "", fallback[PATH_MAX];
	enum first_run_result res;

	if (!cli || !home || !(var = cli_state_dir(cli, home, fallback, sizeof(fallback))))
		return;
	dir = env_lookup(env, var);
	if (!dir || !dir[0])
		dir = fallback;
	if (mkdir(dir, 0700) == 0)
		cs_info("created %s (%s) for %s's state", dir, var, cli->name);
	else if (errno != EEXIST)
		cs_warn("cannot create %s=%s (%s): %s will not keep its state; mount a folder writable by uid %u there",
			var, dir, strerror(errno), cli->name, (unsigned)getuid());
	if (!wired || !isatty(STDIN_FILENO))
		return;  /* no person at a terminal: no first-run screen to get past */
	res = cli->first_run(dir, env, what, sizeof(what));
	if (res == FIRST_RUN_WRITTEN)
		cs_info("first run through the gateway: %s", what);
	else if (res == FIRST_RUN_LEFT_ALONE)
		cs_warn("%s's first-run state left alone: %s; its first-run screens may not work through the gateway",
			cli->name, what);
}

const char *first_run_describe(const struct cli *cli, bool wired)
{
	return cli && wired && cli->first_run_plan[0] ? cli->first_run_plan : NULL;
}
