/* The person's words, read as the runner read them (person_args.h). */
#include <stdio.h>
#include <string.h>

#include "base/cli_names.h"
#include "hostctl/person_args.h"
#include "hostctl/printable.h"
#include "hostctl/refusal.h"
#include "hostctl/validate.h"

/* The words, a --NAME=VALUE one read as two (the runner's
 * set -- "${_a%%=*}" "${_a#*=}" "$@"): next hands out the VALUE part before
 * the following word. */
struct words {
	char **v;
	int n, i;
	const char *pending;  /* a split word's VALUE, not yet read */
};

static bool more(const struct words *w)
{
	return w->pending || w->i < w->n;
}

static const char *next(struct words *w)
{
	const char *s = w->pending;

	if (s) {
		w->pending = NULL;
		return s;
	}
	return w->v[w->i++];
}

/* The next word as an option's name: a --NAME=VALUE word is split, its name
 * kept in a->split.  A name too long for it is no option of the runner's. */
static const char *next_name(struct words *w, struct person_args *a)
{
	const char *s = next(w), *eq;

	if (strncmp(s, "--", 2) != 0 || !(eq = strchr(s, '=')))
		return s;
	/* "--=V" would split into "--" and V, V then the CLI's: refused as an
	 * unknown option instead (the one word the runner read otherwise) */
	if (eq == s + 2 || (size_t)(eq - s) >= sizeof(a->split))
		return s;
	memcpy(a->split, s, (size_t)(eq - s));
	a->split[eq - s] = '\0';
	w->pending = eq + 1;
	return a->split;
}

/* The runner's cli_names: "claude, codex, pi, gemini, opencode". */
static const char *cli_list(void)
{
	static char list[256];

	if (!list[0])
		for (const struct cs_cli_name *c = cs_cli_names; c->name; c++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", c == cs_cli_names ? "" : ", ",
				 c->name);
	return list;
}

static int set_cli(struct person_args *a, const char *name, char *err, size_t len)
{
	if (!*name || !cs_cli_by_name(name))
		return refusal(err, len, "unknown CLI '%s': use one of %s", name, cli_list());
	if (a->cli && strcmp(a->cli, name) != 0)
		return refusal(err, len, "choose one CLI, not both %s and %s", a->cli, name);
	a->cli = name;
	return 0;
}

static int set_profile(struct person_args *a, const char *profile, char *err, size_t len)
{
	if (a->profile && strcmp(a->profile, profile) != 0)
		return refusal(err, len, "--managed and --interactive exclude each other: choose one");
	a->profile = profile;
	return 0;
}

/* A URL with a user name or password (http://user:pass@host): it would be
 * stored, sent in every probe and shown.  The URL is not repeated: it may
 * hold one. */
static bool has_userinfo(const char *url)
{
	const char *auth = strstr(url, "://");
	size_t n;

	auth = auth ? auth + 3 : url;
	n = strcspn(auth, "/?#");
	return memchr(auth, '@', n) != NULL;
}

/* A boolean variable of the person's: unset or "" is dflt; else true or false. */
static int env_bool(person_env_fn env, const char *name, bool dflt, bool *out, char *err, size_t len)
{
	const char *v = env(name);

	if (!v || !*v)
		*out = dflt;
	else if (strcmp(v, "true") == 0 || strcmp(v, "false") == 0)
		*out = strcmp(v, "true") == 0;
	else
		return refusal(err, len, "%s='%s' is not valid: set it to true or false (or unset it)", name, v);
	return 0;
}

static bool is(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(s, *list) == 0)
			return true;
	return false;
}

static const char *const program_first[] = { "version", "--version", "platform", "quickstart", "init",
					     "endpoints", "models", "status", NULL };
static const char *const program_after[] = { "--version", "version", "platform", "quickstart", "init", NULL };
static const char *const commands[] = { "shell", "build", "endpoints", "up", "down", "ping", "status", "models", "demo", NULL };
static const char *const limit_names[PERSON_LIMITS] = { "--pids-limit", "--memory", "--cpus", "--nofile", "--tmp-size" };

/* The program's command, the words from w's position on its own. */
static int program(struct person_args *a, const struct words *w, const char *cmd)
{
	a->kind = PERSON_PROGRAM;
	a->cmd = a->prog[0] = cmd;
	a->n_prog = 1;
	a->used = w->i;
	return 0;
}

/* A value-taking option: *to = the next word, or the runner's need refusal. */
static int value(struct words *w, const char *name, const char **to, char *err, size_t len)
{
	if (!more(w))
		return refusal(err, len, "%s needs a value: see cli-sandbox --help", name);
	*to = next(w);
	return 0;
}

/* One option of the runner's; 1 when name is none of them. */
static int option(struct person_args *a, struct words *w, const char *o, char *err, size_t len)
{
	const char *v = NULL;  /* (set by value(); gcc -O2 cannot tell) */
	bool *flag = strcmp(o, "--allow-host-network") == 0 ? &a->host_network
		     : strcmp(o, "--allow-userns") == 0	     ? &a->allow_userns
		     : strcmp(o, "--docker-socket") == 0     ? &a->socket
		     : strcmp(o, "--allow-host-writes") == 0 ? &a->allow_host_writes
		     : strcmp(o, "--dry-run") == 0	     ? &a->dry_run
		     : strcmp(o, "--json") == 0		     ? &a->json
		     : strcmp(o, "--keep-keys-out") == 0     ? &a->keep_keys_out
		     : strcmp(o, "--keys-in") == 0	     ? &a->keys_in
							     : NULL;

	if (flag) {
		*flag = true;
		return 0;
	}
	if (strcmp(o, "--interactive") == 0)
		return set_profile(a, "interactive", err, len);
	if (strcmp(o, "--no-pinning") == 0) {
		a->pinning = false;
		a->no_pinning = true;
		return 0;
	}
	for (int k = 0; k < PERSON_LIMITS; k++)
		if (strcmp(o, limit_names[k]) == 0)
			return value(w, o, &a->limits[k], err, len);
	if (strcmp(o, "--workspace") == 0 || strcmp(o, "-w") == 0)
		return value(w, o, &a->workspace, err, len);
	if (strcmp(o, "--image") == 0)
		return value(w, o, &a->image, err, len);
	if (strcmp(o, "--engine") == 0) {
		a->engine_from = "--engine";
		return value(w, o, &a->engine, err, len);
	}
	if (strcmp(o, "--cli") == 0)
		return value(w, o, &v, err, len) ? -1 : set_cli(a, v, err, len);
	if (strcmp(o, "--managed") == 0) {
		if (value(w, o, &v, err, len) || set_profile(a, "managed", err, len))
			return -1;
		if (has_userinfo(v))
			return refusal(err, len,
				      "the URL holds a user name or password (user:pass@host), which would be stored and shown: "
				      "give the URL without it, and the key in an exported variable named with --key-env VAR "
				      "(endpoints add NAME URL --key-env VAR)");
		a->url = v;
		return 0;
	}
	if (strcmp(o, "--endpoint") == 0) {
		if (value(w, o, &v, err, len))
			return -1;
		if (!valid_endpoint_name(v, strlen(v)))
			return refusal(err, len,
				      "bad endpoint name '%s': use letters, digits, '-', '_' and '.', starting with a letter or digit",
				      v);
		a->endpoint = v;
		return 0;
	}
	if (strcmp(o, "--allow") == 0) {
		size_t n = strlen(a->allow);

		if (value(w, o, &v, err, len))
			return -1;
		if ((size_t)snprintf(a->allow + n, sizeof(a->allow) - n, "%s%s", n ? "," : "", v) >= sizeof(a->allow) - n)
			return refusal(err, len, "--allow's names are too long together: give fewer");
		return 0;
	}
	return 1;
}

/* shell [-w DIR] [--cli CLI] [-- BASH-ARGS...] */
static int shell_words(struct person_args *a, struct words *w, char *err, size_t len)
{
	while (more(w)) {
		const char *o = next_name(w, a);

		if (strcmp(o, "-w") == 0 || strcmp(o, "--workspace") == 0) {
			if (value(w, o, &a->workspace, err, len))
				return -1;
		} else if (strcmp(o, "--cli") == 0) {
			const char *v = NULL;

			if (value(w, o, &v, err, len) || set_cli(a, v, err, len))
				return -1;
		} else if (strcmp(o, "--") == 0)
			break;
		else
			return refusal(err, len, "unknown shell argument '%s': use cli-sandbox shell [-w DIR] [--cli CLI] [-- BASH-ARGS...]",
				      o);
	}
	return 0;
}

/* Each value goes back to the runner as one KEY=VALUE line. */
static int one_line_values(const struct person_args *a, char *err, size_t len)
{
	const char *values[] = { a->url, a->workspace, a->image, a->allow };

	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++)
		if (values[i] && !one_line(values[i]))
			return refusal(err, len, "a value holds a line break or another control character: give the path, "
						 "URL, image or name without it");
	return 0;
}

/* After the words: the checks the runner made before asking anything. */
static int finish(struct person_args *a, char *err, size_t len)
{
	if (a->json && strcmp(a->cmd, "doctor") != 0)
		return refusal(err, len, "--json is for doctor only (ping, status: after the command)");
	a->cli_named = a->cli != NULL;
	a->cli = a->cli ? a->cli : "claude";
	a->profile = a->profile ? a->profile : "managed";
	if (*a->engine && strcmp(a->engine, "docker") != 0 && strcmp(a->engine, "podman") != 0)
		return refusal(err, len, "unknown engine '%s': use --engine docker or --engine podman", a->engine);
	if (strcmp(a->profile, "managed") == 0) {
		if (a->allow[0])
			return refusal(err, len, "--allow needs --interactive: the managed profile allows only the model endpoint");
		if (a->host_network)
			return refusal(err, len, "--allow-host-network needs --interactive: the managed profile allows only the model endpoint");
		if (a->no_pinning)
			return refusal(err, len, "--no-pinning needs --interactive: the managed profile has no DNS at all");
	}
	return 0;
}

int person_args_parse(int argc, char **argv, person_env_fn env, struct person_args *a, char *err, size_t len)
{
	struct words w = { argv, argc, 0, NULL };
	const char *engine = env("CLI_SANDBOX_ENGINE"), *image = env("CLI_SANDBOX_IMAGE");

	memset(a, 0, sizeof(*a));
	a->kind = PERSON_RUNNER;
	a->cmd = "run";
	/* Named first, the program's commands go to it before anything is read. */
	if (argc > 0 && is(argv[0], program_first)) {
		w.i = 1;
		return program(a, &w, argv[0]);
	}
	if (argc > 0 && (strcmp(argv[0], "-h") == 0 || strcmp(argv[0], "--help") == 0)) {
		w.i = argc;
		return program(a, &w, "usage");
	}
	a->engine = engine ? engine : "";
	a->engine_from = "CLI_SANDBOX_ENGINE";
	a->image = image && *image ? image : "localhost/cli-sandbox:latest";
	a->workspace = ".";
	if (env_bool(env, "CLI_SANDBOX_KEYS_IN", false, &a->keys_in, err, len) ||
	    env_bool(env, "CLI_SANDBOX_PINNING", true, &a->pinning, err, len))
		return -1;
	while (more(&w)) {
		const char *o = next_name(&w, a);
		int rc;

		if (strcmp(o, "-h") == 0 || strcmp(o, "--help") == 0) {
			w.i = argc, w.pending = NULL;
			return program(a, &w, "usage");
		}
		if (is(o, program_after)) {
			/* --engine and --image go with them */
			a->set_engine = *a->engine ? a->engine : NULL;
			a->set_image = a->image;
			program(a, &w, o);
			if (w.pending)  /* --version=X: X is the command's first word */
				a->prog[a->n_prog++] = w.pending;
			return 0;
		}
		if (strcmp(o, "--") == 0)
			break;
		if ((rc = option(a, &w, o, err, len)) <= 0) {
			if (rc < 0)
				return -1;
			continue;
		}
		if (o[0] == '-')
			return refusal(err, len,
				      "unknown option '%s': see cli-sandbox --help (the script's options go before the CLI's name; "
				      "everything after the name goes to the CLI)",
				      o);
		/* doctor reads the same options, and a CLI's name, after it */
		if (strcmp(o, "doctor") == 0) {
			a->cmd = "doctor";
			continue;
		}
		if (strcmp(a->cmd, "doctor") == 0) {
			if (set_cli(a, o, err, len))
				return -1;
			continue;
		}
		if (is(o, commands)) {
			a->cmd = o;
			break;
		}
		if (!cs_cli_by_name(o))
			return refusal(err, len,
				      "unknown command '%s': use a CLI (%s), shell, build, doctor, endpoints, up, down, ping, "
				      "status, models or demo (see --help)",
				      o, cli_list());
		if (set_cli(a, o, err, len))
			return -1;
		/* 'cli-sandbox codex build' builds codex's own image (none of the CLIs has a build command) */
		if (more(&w) && !w.pending && strcmp(w.v[w.i], "build") == 0) {
			a->cmd = "build";
			w.i++;
		}
		if (more(&w) && !w.pending && strcmp(w.v[w.i], "--") == 0)
			w.i++;
		break;
	}
	if (strcmp(a->cmd, "endpoints") == 0 || strcmp(a->cmd, "models") == 0 || strcmp(a->cmd, "status") == 0) {
		program(a, &w, a->cmd);
		if (strcmp(a->cmd, "status") == 0) {
			if (a->cli)
				a->prog[a->n_prog++] = "--cli", a->prog[a->n_prog++] = a->cli;
			a->set_engine = *a->engine ? a->engine : NULL;
			a->set_image = a->image;
		}
		if (strcmp(a->cmd, "endpoints") != 0) {
			if (a->endpoint)
				a->prog[a->n_prog++] = "--endpoint", a->prog[a->n_prog++] = a->endpoint;
			if (a->json)
				a->prog[a->n_prog++] = "--json";
		}
		return 0;
	}
	a->used = w.i;
	if (strcmp(a->cmd, "demo") == 0)  /* host/lib/demo.sh reads its own words, and --json */
		return one_line_values(a, err, len);
	if (strcmp(a->cmd, "shell") == 0 && shell_words(a, &w, err, len))
		return -1;
	a->used = w.i;
	return finish(a, err, len) ? -1 : one_line_values(a, err, len);
}
