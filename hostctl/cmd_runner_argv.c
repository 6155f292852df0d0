/* runner --argv [--stdout-fd N] -- WORDS...: the runner's script hands
 * over the person's words as they were typed.  They are read here
 * (person_args.h), and then either
 *   - a command this program answers (endpoints, models, status, version,
 *     platform, quickstart, init, --help) runs right here, its output on
 *     fd N (the person's own standard output: the script reads this
 *     program's lines from a pipe), its status this one's; no line; or
 *   - the run's choices come back as arg_* lines, and after them the facts
 *     the script asked for in a second list of options before (runner_facts),
 *     one call for both.
 * A refusal is the script's own line, "cli-sandbox: <problem>: <fix>", exit 2.
 * docs/hostctl.md, "runner --argv". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hostctl/person_args.h"
#include "hostctl/runner.h"

int person_refusal(const char *msg)
{
	fprintf(stderr, "cli-sandbox: %s\n", msg);
	return CTL_EXIT_USAGE;
}

static const char *from_env(const char *name)
{
	return getenv(name);
}

/* The program's own command, in this process, on the person's stdout. */
static int program(const struct person_args *p, int argc, char **words, int out_fd)
{
	char **v = calloc((size_t)(p->n_prog + argc - p->used + 1), sizeof(*v));
	int n = 0;

	if (!v)
		return person_refusal("out of memory: close something and try again");
	if (out_fd >= 0 && (dup2(out_fd, STDOUT_FILENO) < 0 || close(out_fd) != 0)) {
		free(v);
		return person_refusal("cannot reach the terminal's output (--stdout-fd): run cli-sandbox from a shell");
	}
	if ((p->set_engine && setenv("CLI_SANDBOX_ENGINE", p->set_engine, 1) != 0) ||
	    (p->set_image && setenv("CLI_SANDBOX_IMAGE", p->set_image, 1) != 0)) {
		free(v);
		return person_refusal("out of memory: close something and try again");
	}
	for (int i = 0; i < p->n_prog; i++)
		v[n++] = (char *)p->prog[i];
	for (int i = p->used; i < argc; i++)
		v[n++] = words[i];
	n = ctl_dispatch(n, v);
	free(v);
	return n;
}

static const char *yes(bool b)
{
	return b ? "true" : "false";
}

/* The run's choices, for the script's variables of the same meaning. */
static void choice_lines(const struct person_args *p)
{
	printf("arg_cmd=%s\narg_used=%d\narg_cli=%s\narg_cli_named=%s\narg_profile=%s\narg_image=%s\n", p->cmd, p->used,
	       p->cli ? p->cli : "", yes(p->cli_named), p->profile ? p->profile : "", p->image);
	printf("arg_url=%s\narg_endpoint=%s\narg_allow=%s\n", p->url ? p->url : "", p->endpoint ? p->endpoint : "",
	       p->allow);  /* (the workspace: the facts' ws_path or ws_error) */
	printf("arg_host_network=%s\narg_pinning=%s\narg_allow_userns=%s\narg_socket=%s\narg_allow_host_writes=%s\n",
	       yes(p->host_network), yes(p->pinning), yes(p->allow_userns), yes(p->socket), yes(p->allow_host_writes));
	printf("arg_dry_run=%s\narg_json=%s\narg_keep_keys_out=%s\narg_keys_in=%s\n", yes(p->dry_run), yes(p->json),
	       yes(p->keep_keys_out), yes(p->keys_in));
	if (*p->engine)
		printf("engine=%s\nengine_why=chosen with %s\n", p->engine, p->engine_from);
}

/* The facts the script asked for, as it asked (its runner_facts before). */
static int facts(const struct person_args *p, unsigned uid, unsigned gid)
{
	struct runner_args a = { .cli = p->cli, .uid = uid, .gid = gid, .person = true };
	bool run = strcmp(p->cmd, "run") == 0 || strcmp(p->cmd, "shell") == 0;

	a.engine = *p->engine ? p->engine : NULL;
	a.choose = !a.engine;
	a.required = strcmp(p->cmd, "doctor") != 0;
	if (strcmp(p->cmd, "build") == 0) {  /* the engine alone, and only when none was named */
		if (a.engine) {
			fflush(stdout);
			return 0;
		}
		return runner_facts(&a);
	}
	a.check = a.limits = true;
	for (int k = 0; k < LIMIT_OPTS; k++)
		a.limit_opts[k] = p->limits[k];
	a.url = p->url;
	a.name = p->endpoint;
	a.select = !p->endpoint && !p->url && strcmp(p->profile, "managed") == 0;
	if (run || strcmp(p->cmd, "doctor") == 0) {
		a.workspace = p->workspace;
		a.identity = true;
	}
	if (run) {
		a.git = a.plan = true;
		a.keys_in = p->keys_in;
		a.socket = p->socket;
	}
	if (strcmp(p->cmd, "ping") == 0)
		a.identity = true;
	return runner_facts(&a);
}

/* A number for --stdout-fd, --uid or --gid; false when s is none. */
static bool number(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	*out = strtoul(s, &end, 10);
	return !*end && *out <= max;
}

int runner_argv(int argc, char **argv)
{
	struct person_args *p;
	char err[1024];
	unsigned long fd = 0, uid = geteuid(), gid = getegid(), *to;
	int i = 1, rc;

	/* --uid, --gid: the ids the lines are for, as runner's (the tests' fake person) */
	for (; i + 1 < argc && strcmp(argv[i], "--") != 0; i += 2) {
		to = strcmp(argv[i], "--stdout-fd") == 0 ? &fd
		     : strcmp(argv[i], "--uid") == 0	 ? &uid
		     : strcmp(argv[i], "--gid") == 0	 ? &gid
							 : NULL;
		if (!to || !number(argv[i + 1], to == &fd ? 1023 : 0xfffffffeul, to) || (to == &fd && fd <= STDERR_FILENO))
			return ctl_usage("usage: cli-sandbox-ctl runner --argv [--stdout-fd N (above 2)] [--uid N --gid N] -- WORDS...");
	}
	if (i >= argc || strcmp(argv[i], "--") != 0)
		return ctl_usage("usage: cli-sandbox-ctl runner --argv [--stdout-fd N (above 2)] [--uid N --gid N] -- WORDS...");
	i++;
	if (!(p = malloc(sizeof(*p))))
		return person_refusal("out of memory: close something and try again");
	if (person_args_parse(argc - i, argv + i, from_env, p, err, sizeof(err)) != 0)
		rc = person_refusal(err);
	else if (p->kind == PERSON_PROGRAM)
		rc = program(p, argc - i, argv + i, fd ? (int)fd : -1);
	else {
		if (fd)
			close((int)fd);  /* not the engine's, nor git's */
		choice_lines(p);
		rc = strcmp(p->cmd, "demo") == 0 ? 0 : facts(p, (unsigned)uid, (unsigned)gid);  /* demo.sh asks its own */
		fflush(stdout);
	}
	free(p);
	return rc;
}
