/* credentials: the sandbox's credentials for host/cli-sandbox, decided
 * (credentials_plan.h) and, in a real run, written (credentials_file.h)
 * from this program's own environment: a key is never in a command line,
 * and never printed.  One KEY=VALUE a line, read by host/lib/plan.sh's
 * cred_read without eval (docs/hostctl.md, "credentials"):
 *   cred_error=TEXT     no credential at all (the run dies, or warns); nothing follows
 *   cred_vars=A B       the variables passed      cred_login=PATH  else the login file
 *   by_name=NAME        a line each: -e NAME
 *   copy=TO FROM        a by-name TO whose value is FROM's: the runner exports it
 *   warn=TEXT           no memory-backed directory: the file's went by name
 *   file=PATH           the file to mount (a dry run's has RANDOM for the random part)
 *   cred_dir=DIR        the private directory made (a real run): the run's end removes it
 *   die=TEXT            the file could not be made: the run stops with TEXT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hostctl/cmds.h"
#include "hostctl/credentials_file.h"
#include "hostctl/private_dir.h"
#include "hostctl/credentials_plan.h"
#include "hostctl/memory_fs.h"
#include "hostctl/printable.h"

static const char help[] =
	"Usage: cli-sandbox-ctl credentials --cli CLI [--decide | --dry-run | --write] [--state DIR]\n"
	"         [--engine E] [--endpoint NAME --key-env VAR [--key-to VAR]] [--copy FROM=TO]...\n"
	"         [--var NAME... [--broker]] [--session DIR] [--uid N]\n"
	"The sandbox's credentials for host/cli-sandbox (docs/hostctl.md, \"credentials\"): which of\n"
	"the CLI's variables are set (or --var: these), the login file in DIR else, and which go in\n"
	"the credentials file on memory (XDG_RUNTIME_DIR or /dev/shm) and which by name (-e).\n"
	"--write makes the file in a private directory (in --session DIR when given) with the\n"
	"values of this program's own environment; --dry-run names it; --decide stops before it.\n"
	"Values are never arguments and never printed.  KEY=VALUE lines; exit 2 on a bad request.\n";

static const char *env_get(const char *name)
{
	return getenv(name);
}

static bool nonempty_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && st.st_size > 0;
}

/* A directory this user may write, on tmpfs or ramfs (statfs), whose path a
 * line carries. */
static bool memory_dir(const char *path)
{
	struct stat st;

	return one_line(path) && stat(path, &st) == 0 && S_ISDIR(st.st_mode) && access(path, W_OK | X_OK) == 0 &&
	       memory_fs(path) == 1;
}

/* One line KEY=TEXT, TEXT made one printable line. */
static void line(const char *key, const char *text)
{
	char buf[CRED_TEXT_MAX + 8192];

	printable_copy(text, buf, sizeof(buf));
	printf("%s=%s\n", key, buf);
}

enum mode { DRY_RUN, DECIDE, WRITE };

static int parse(int argc, char **argv, struct cred_in *in, enum mode *mode, const char **session, bool *root)
{
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(o, "--decide") == 0 || strcmp(o, "--dry-run") == 0 || strcmp(o, "--write") == 0) {
			*mode = o[2] == 'd' ? (o[3] == 'e' ? DECIDE : DRY_RUN) : WRITE;
			continue;
		}
		if (strcmp(o, "--broker") == 0) {
			in->broker = true;
			continue;
		}
		if (!v)
			return ctl_usage("%s needs a value: see cli-sandbox-ctl credentials --help", o);
		i++;
		if (strcmp(o, "--cli") == 0) {
			if (!(in->cli = cs_cli_by_name(v)))
				return ctl_usage("credentials needs --cli claude, codex, pi, gemini or opencode");
		} else if (strcmp(o, "--state") == 0)
			in->state = v;
		else if (strcmp(o, "--engine") == 0)
			in->engine = v;
		else if (strcmp(o, "--endpoint") == 0)
			in->endpoint = v;
		else if (strcmp(o, "--key-env") == 0)
			in->key_env = v;
		else if (strcmp(o, "--key-to") == 0)
			in->key_to = v;
		else if (strcmp(o, "--uid") == 0)
			*root = strcmp(v, "0") == 0;
		else if (strcmp(o, "--session") == 0)
			*session = v;
		else if (strcmp(o, "--var") == 0 && in->n_given < CRED_MAX)
			in->given[in->n_given++] = v;
		else if (strcmp(o, "--copy") == 0 && in->n_copy < CRED_MAX && strchr(v, '=')) {
			char *eq = strchr(argv[i], '=');

			*eq = '\0';  /* FROM=TO: names only, split in place */
			in->copy[in->n_copy].from = argv[i];
			in->copy[in->n_copy++].to = eq + 1;
		} else
			return ctl_usage("usage: cli-sandbox-ctl credentials --cli CLI [...]: see cli-sandbox-ctl credentials --help");
	}
	if (!in->cli)
		return ctl_usage("credentials needs --cli claude, codex, pi, gemini or opencode");
	return 0;
}

/* A real run's file: the private directory (in the session's, whose end
 * removes it too, when there is one), then the file.  Mode 600 when this
 * process is root (--uid: the invoking uid the runner read, by default this
 * process's; a rootful engine's container root owns it then and
 * needs no CAP_DAC_OVERRIDE, which it lacks); else 644 in the 700
 * directory: the init's root, an unmapped uid, reads it through the other
 * bits, and no other user of this host can enter the directory. */
static void write_file(const struct cred_in *in, const struct cred_out *out, const char *session, bool root)
{
	const char *base = session ? session : out->base, *names[CRED_MAX], *values[CRED_MAX];
	char dir[4096], msg[CRED_TEXT_MAX + 8192];
	struct cs_error err;

	if (!one_line(base)) {
		line("die", "the credentials file's directory has a control character in its path: set XDG_RUNTIME_DIR to a plain path");
		return;
	}
	if (private_dir(base, "cli-sandbox-credentials", dir, sizeof(dir), NULL, &err) != 0) {
		line("die", err.msg);
		return;
	}
	for (size_t i = 0; i < out->n_file_vars; i++) {
		names[i] = out->file_vars[i];
		values[i] = cred_value(in, out->file_vars[i]);
	}
	if (cred_write_file(dir, names, values, out->n_file_vars, root ? 0600 : 0644) != 0) {
		rmdir(dir);
		snprintf(msg, sizeof(msg), "cannot write the credentials file in %s: check the space on %s", dir, base);
		line("die", msg);
		return;
	}
	printf("file=%s/env\ncred_dir=%s\n", dir, dir);
}

int cmd_credentials(int argc, char **argv)
{
	struct cred_in in = { .get = env_get, .nonempty_file = nonempty_file, .memory_dir = memory_dir };
	struct cred_out *out;
	enum mode mode = DRY_RUN;
	const char *session = NULL;
	bool root = geteuid() == 0;
	char err[256], list[CRED_TEXT_MAX] = "";
	int rc;

	if (ctl_help(argc, argv, help))
		return 0;
	if ((rc = parse(argc, argv, &in, &mode, &session, &root)) != 0)
		return rc;
	in.decide_only = mode == DECIDE;
	in.bases[0] = getenv("XDG_RUNTIME_DIR");
	in.bases[1] = "/dev/shm";
	if (!(out = malloc(sizeof(*out))))
		return ctl_usage("out of memory");
	if (cred_plan(&in, out, err, sizeof(err)) != 0) {
		free(out);
		return ctl_usage("%s", err);
	}
	if (out->error[0]) {
		line("cred_error", out->error);
		free(out);
		return 0;
	}
	for (size_t i = 0; i < out->n_vars; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? " " : "", out->vars[i]);
	if (out->n_vars)
		line("cred_vars", list);
	if (out->login[0])
		line("cred_login", out->login);
	for (size_t i = 0; i < out->n_by_name; i++)
		printf("by_name=%s\n", out->by_name[i]);
	for (size_t i = 0; i < out->n_export_copy; i++)
		printf("copy=%s %s\n", out->export_copy[i].to, out->export_copy[i].from);
	if (out->warning[0])
		line("warn", out->warning);
	if (out->n_file_vars && mode == DRY_RUN)
		printf("file=%s/cli-sandbox-credentials.RANDOM/env\n", out->base);
	else if (out->n_file_vars && mode == WRITE)
		write_file(&in, out, session, root);
	free(out);
	fflush(stdout);
	return 0;
}
