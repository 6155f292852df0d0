/* cli-sandbox-ctl runner's two halves, for the program's two files:
 * cmd_runner.c (the facts of a run, one KEY=VALUE a line) and
 * cmd_runner_argv.c (--argv: the person's words read first, then those
 * facts asked for as the runner's script asked for them). */
#ifndef HOSTCTL_RUNNER_H
#define HOSTCTL_RUNNER_H

#include <stdbool.h>

#include "hostctl/cmds.h"

struct runner_args {
	const char *cli, *name, *url, *engine, *workspace, *as_uid, *as_gid;
	unsigned uid, gid;  /* whom the lines are for: this process's ids, or --uid/--gid */
	const char *limit_opts[LIMIT_OPTS];
	bool check, select, limits, plan, keys_in, choose, required, identity, socket, git;
	/* --argv: what stops a run is said here, as the runner's script said
	 * it (person_refusal), not left to it as a line */
	bool person;
	const char *engine_err;  /* set when no engine answers */
};

/* The facts' lines (cmd_runner.c's header comment); the status to exit with. */
int runner_facts(struct runner_args *a);

/* runner --argv (cmd_runner_argv.c). */
int runner_argv(int argc, char **argv);

/* "cli-sandbox: MSG" on stderr, the runner's die; returns its status, 2. */
int person_refusal(const char *msg);

#endif
