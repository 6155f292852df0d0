/* The words a person typed after cli-sandbox, read as the runner's options
 * and command (docs/host-script.md, "Options"; docs/hostctl.md, "runner
 * --argv").  A pure stage: the words and three of the environment's
 * variables in, the run's choices or one refusal out.  The runner's own
 * option loop before (host/cli-sandbox), ported rule for rule, refusals word
 * for word: the script's options come first, the first word that is not one
 * names what to do, and after a CLI's name every word is the CLI's (a '--'
 * right there is dropped). */
#ifndef HOSTCTL_PERSON_ARGS_H
#define HOSTCTL_PERSON_ARGS_H

#include <stdbool.h>
#include <stddef.h>

/* What a command word is: the runner's own (a run, shell, build, doctor, up,
 * down, ping, demo), or one this program answers itself (endpoints, models,
 * status, version, platform, quickstart, init, usage). */
enum person_kind { PERSON_RUNNER, PERSON_PROGRAM };

#define PERSON_LIMITS 5  /* --pids-limit --memory --cpus --nofile --tmp-size, limit_options' order */

struct person_args {
	enum person_kind kind;
	const char *cmd;      /* run shell build doctor up down ping demo; or the program's command */
	const char *cli;      /* claude when none was named */
	bool cli_named;
	const char *profile;  /* managed | interactive */
	const char *url, *endpoint, *workspace, *engine, *engine_from, *image;
	char allow[1024];     /* --allow's values, comma-joined */
	const char *limits[PERSON_LIMITS];
	bool host_network, pinning, no_pinning, allow_userns, socket, allow_host_writes, dry_run, json, keep_keys_out,
		keys_in;
	/* How many of the words the runner's options took: the rest are the CLI's
	 * (a run), bash's (shell), the engine's (build) or the command's (demo,
	 * ping, up, down). */
	int used;
	/* PERSON_PROGRAM: the program's command line is prog[0..n_prog-1] (prog[0]
	 * the command) and then the words from argv[used]; it is given the
	 * variables set_engine and set_image (CLI_SANDBOX_ENGINE and
	 * CLI_SANDBOX_IMAGE; NULL: as they are) */
	const char *prog[8];
	int n_prog;
	const char *set_engine, *set_image;
	char split[4096];     /* the name of a --NAME=VALUE word being read */
};

/* getenv's shape, so the tests give the three variables read
 * (CLI_SANDBOX_ENGINE, CLI_SANDBOX_IMAGE, CLI_SANDBOX_KEYS_IN,
 * CLI_SANDBOX_PINNING) without touching the process's environment. */
typedef const char *(*person_env_fn)(const char *name);

/* Reads argv[0..argc-1] (the person's words, not the program's name).
 * 0 and *a filled, or -1 with the refusal in err (the runner's die line's
 * text: "<problem>: <fix>", said as "cli-sandbox: ...", exit 2).  *a points
 * into argv and holds no allocation. */
int person_args_parse(int argc, char **argv, person_env_fn env, struct person_args *a, char *err, size_t len);

#endif
