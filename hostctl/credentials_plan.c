/* The credentials' decision table (credentials_plan.h): what was
 * host/cli-sandbox's find_credentials, cred_in_file and add_credentials,
 * their messages word for word. */
#include "hostctl/credentials_plan.h"

#include <stdio.h>
#include <string.h>

#include "base/credentials.h"
#include "hostctl/refusal.h"

static bool var_name_ok(const char *s)
{
	if (!s || !*s || strlen(s) >= CRED_NAME_MAX || (*s >= '0' && *s <= '9'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

/* The target of key-env's copy: key_to, else the CLI's first variable. */
static void first_var(const struct cred_in *in, char *out)
{
	size_t n;

	if (in->key_to) {
		snprintf(out, CRED_NAME_MAX, "%s", in->key_to);
		return;
	}
	n = strcspn(in->cli->keys, " ");
	snprintf(out, CRED_NAME_MAX, "%.*s", (int)(n < CRED_NAME_MAX ? n : CRED_NAME_MAX - 1), in->cli->keys);
}

/* The variable name's source when it is a copy's target, else NULL. */
static const char *copied_from(const struct cred_in *in, const char *name)
{
	const char *from = NULL;
	char first[CRED_NAME_MAX];

	for (size_t i = 0; i < in->n_copy; i++)
		if (strcmp(in->copy[i].to, name) == 0)
			from = in->copy[i].from;
	if (in->n_given == 0 && in->key_env && *in->key_env) {
		first_var(in, first);
		if (strcmp(first, name) == 0 && strcmp(in->key_env, name) != 0)
			from = in->key_env;  /* find_credentials' copy: after run_cmd's */
	}
	return from;
}

const char *cred_value(const struct cred_in *in, const char *name)
{
	const char *from = copied_from(in, name), *v = in->get(from ? from : name);

	return v ? v : "";
}

static void add_name(char list[][CRED_NAME_MAX], size_t *n, const char *name)
{
	snprintf(list[(*n)++], CRED_NAME_MAX, "%s", name);
}

/* The CLI's variables with a value, else the first login file in the state
 * folder, else the error naming what to set. */
static void find(const struct cred_in *in, struct cred_out *out)
{
	const char *keys = in->cli->keys, *logins = in->cli->logins;
	char name[CRED_NAME_MAX], or[256] = "";
	size_t n_keys = 0;

	if (in->key_env && *in->key_env && !*cred_value(in, in->key_env)) {
		snprintf(out->error, sizeof(out->error),
			 "endpoint '%s' takes its key from %s, which is not set: export %s in this shell, or change the endpoint (cli-sandbox endpoints add %s URL --key-env VAR)",
			 in->endpoint ? in->endpoint : "", in->key_env, in->key_env, in->endpoint ? in->endpoint : "");
		return;
	}
	for (const char *p = keys; *p;) {
		size_t n = strcspn(p, " ");

		snprintf(name, sizeof(name), "%.*s", (int)(n < sizeof(name) ? n : sizeof(name) - 1), p);
		if (n_keys == 1)
			snprintf(or, sizeof(or), " (or %s)", name);
		n_keys++;
		if (*cred_value(in, name) && out->n_vars < CRED_MAX)
			add_name(out->vars, &out->n_vars, name);
		p += n + (p[n] == ' ');
	}
	for (const char *p = logins; !out->n_vars && in->state && *p;) {
		size_t n = strcspn(p, ",");

		snprintf(out->login, sizeof(out->login), "%s/%.*s", in->state, (int)n, p);
		if (!(n == 1 && *p == '-') && in->nonempty_file(out->login))
			break;
		out->login[0] = '\0';
		p += n + (p[n] == ',');
	}
	if (out->n_vars || out->login[0])
		return;
	if (n_keys == 1)
		or[0] = '\0';
	else if (n_keys > 2)
		snprintf(or, sizeof(or), " (or another of %s's provider variables, listed in docs/host-script.md)", in->cli->name);
	snprintf(out->error, sizeof(out->error),
		 "no credential for %s: export %.*s%s in the shell that runs cli-sandbox, or keep a login in %s", in->cli->name,
		 (int)strcspn(keys, " "), keys, or, in->state ? in->state : "");
}

/* In the file: a variable the init takes from it (base/credentials.h) with a
 * value its one-line format holds.  Through the key broker the value is the
 * run's token, one line of hex: not read (a dry run has none yet). */
static bool in_file(const struct cred_in *in, const char *name)
{
	if (!credential_name_ok(name, strlen(name)))
		return false;
	return in->broker || !strchr(cred_value(in, name), '\n');
}

static void by_name(const struct cred_in *in, struct cred_out *out, const char *name)
{
	const char *from = copied_from(in, name);

	add_name(out->by_name, &out->n_by_name, name);
	if (from) {
		snprintf(out->export_copy[out->n_export_copy].to, CRED_NAME_MAX, "%s", name);
		snprintf(out->export_copy[out->n_export_copy++].from, CRED_NAME_MAX, "%s", from);
	}
}

int cred_plan(const struct cred_in *in, struct cred_out *out, char *err_text, size_t len)
{
	char list[CRED_TEXT_MAX] = "";

	memset(out, 0, sizeof(*out));
	if (in->n_given > CRED_MAX || in->n_copy > CRED_MAX)
		return refusal(err_text, len, "at most %d variables", CRED_MAX);
	for (size_t i = 0; i < in->n_given; i++)
		if (!var_name_ok(in->given[i]))
			return refusal(err_text, len, "bad variable name in --var");
	for (size_t i = 0; i < in->n_copy; i++)
		if (!var_name_ok(in->copy[i].from) || !var_name_ok(in->copy[i].to))
			return refusal(err_text, len, "bad variable name in --copy");
	if ((in->key_env && *in->key_env && !var_name_ok(in->key_env)) || (in->key_to && !var_name_ok(in->key_to)))
		return refusal(err_text, len, "bad variable name in --key-env or --key-to");
	if (in->n_given) {
		for (size_t i = 0; i < in->n_given; i++)
			add_name(out->vars, &out->n_vars, in->given[i]);
	} else
		find(in, out);
	if (out->error[0] || in->decide_only)
		return 0;
	for (size_t i = 0; i < out->n_vars; i++) {
		if (in_file(in, out->vars[i]))
			add_name(out->file_vars, &out->n_file_vars, out->vars[i]);
		else
			by_name(in, out, out->vars[i]);
	}
	if (!out->n_file_vars)
		return 0;
	for (size_t i = 0; i < 2 && !out->base; i++)
		/* the engine's -v cannot mount a path with ':' */
		if (in->bases[i] && *in->bases[i] && !strchr(in->bases[i], ':') && in->memory_dir(in->bases[i]))
			out->base = in->bases[i];
	if (out->base)
		return 0;
	for (size_t i = 0; i < out->n_file_vars; i++) {
		size_t used = strlen(list);

		snprintf(list + used, sizeof(list) - used, " %s", out->file_vars[i]);
		by_name(in, out, out->file_vars[i]);
	}
	out->n_file_vars = 0;
	/* A message: cut where it would not fit (the names are by_name's lines too), never
	 * overrun; gcc's Debug and MinSizeRel builds ask for the result to be looked at. */
	if (snprintf(out->warning, sizeof(out->warning),
		     "no memory-backed directory for the credentials file (XDG_RUNTIME_DIR or /dev/shm on tmpfs): passing%s by name (-e), so their values are kept in the container's config, readable with '%s inspect' by whoever may use %s",
		     list, in->engine ? in->engine : "", in->engine ? in->engine : "") >= (int)sizeof(out->warning))
		out->warning[sizeof(out->warning) - 1] = '\0';
	return 0;
}
