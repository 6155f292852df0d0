/* The sandbox's credentials (hostctl/credentials_plan.h, credentials_file.h):
 * the decision table (which variables, key-env's copy, the login file, the
 * error texts, the file or by name, the warning) over a fake environment, and
 * the writer: the private directory's mode, the file's lines and mode, what it
 * refuses, and that a decision never carries a value. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/credentials.h"
#include "check.h"
#include "hostctl/credentials_file.h"
#include "hostctl/private_dir.h"
#include "hostctl/credentials_plan.h"

#define SECRET "sk-secret-value-123"

/* The fake environment: NAME=VALUE pairs, NULL-ended. */
static const char *const *env;
static const char *get(const char *name)
{
	size_t n = strlen(name);

	for (const char *const *e = env; *e; e++)
		if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}
static bool has_login;
static bool nonempty(const char *path)
{
	return has_login && strcmp(path, "/s/.claude/.credentials.json") == 0;
}
static bool on_memory;
static bool mem(const char *path)
{
	return on_memory && strcmp(path, "/run/user/1") == 0;
}

static struct cred_in base_in(const char *cli)
{
	struct cred_in in = { .cli = cs_cli_by_name(cli), .state = "/s/.claude", .engine = "podman", .get = get,
			      .nonempty_file = nonempty, .memory_dir = mem, .bases = { "/run/user/1", "/dev/shm" } };
	return in;
}

/* No field of the decision holds the secret. */
static bool no_value(const struct cred_out *o)
{
	const char *p = (const char *)o;

	for (size_t i = 0; i + strlen(SECRET) <= sizeof(*o); i++)
		if (memcmp(p + i, SECRET, strlen(SECRET)) == 0)
			return false;
	return true;
}

static void table(void)
{
	static const char *const none[] = { NULL };
	static const char *const second[] = { "ANTHROPIC_AUTH_TOKEN=" SECRET, NULL };
	static const char *const both[] = { "ANTHROPIC_API_KEY=" SECRET, "ANTHROPIC_AUTH_TOKEN=" SECRET, NULL };
	static const char *const mine[] = { "MY_KEY=" SECRET, NULL };
	static const char *const nl[] = { "ANTHROPIC_API_KEY=a\nb", NULL };
	struct cred_out o;
	struct cred_in in;
	char err[256];

	on_memory = true;
	/* nothing set, no login: the error names the variable(s) */
	env = none, has_login = false, in = base_in("claude");
	CHECK(cred_plan(&in, &o, err, sizeof(err)) == 0, "claude none");
	CHECK_STR(o.error, "no credential for claude: export ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN) in the shell that runs cli-sandbox, or keep a login in /s/.claude");
	in = base_in("pi");
	cred_plan(&in, &o, err, sizeof(err));
	CHECK_STR(o.error, "no credential for pi: export ANTHROPIC_API_KEY (or another of pi's provider variables, listed in docs/host-script.md) in the shell that runs cli-sandbox, or keep a login in /s/.claude");
	/* the login file stands in */
	has_login = true, in = base_in("claude");
	cred_plan(&in, &o, err, sizeof(err));
	CHECK(!o.error[0] && o.n_vars == 0 && o.n_file_vars == 0, "login: no vars");
	CHECK_STR(o.login, "/s/.claude/.credentials.json");
	/* variables set, in the table's order, into the file */
	env = both, has_login = false;
	cred_plan(&in, &o, err, sizeof(err));
	CHECK(o.n_vars == 2 && strcmp(o.vars[0], "ANTHROPIC_API_KEY") == 0 && o.n_file_vars == 2 && o.n_by_name == 0 &&
		      o.base && strcmp(o.base, "/run/user/1") == 0 && !o.warning[0] && no_value(&o),
	      "both: %zu vars, %zu in file", o.n_vars, o.n_file_vars);
	/* doctor's: the decision alone */
	in.decide_only = true;
	cred_plan(&in, &o, err, sizeof(err));
	CHECK(o.n_vars == 2 && o.n_file_vars == 0 && !o.base, "decide only");
	/* no memory-backed directory: by name, with the warning */
	on_memory = false, in = base_in("claude");
	cred_plan(&in, &o, err, sizeof(err));
	CHECK(o.n_by_name == 2 && o.n_file_vars == 0 && o.n_export_copy == 0, "no memory: by name");
	CHECK_STR(o.warning, "no memory-backed directory for the credentials file (XDG_RUNTIME_DIR or /dev/shm on tmpfs): passing ANTHROPIC_API_KEY ANTHROPIC_AUTH_TOKEN by name (-e), so their values are kept in the container's config, readable with 'podman inspect' by whoever may use podman");
	on_memory = true;
	/* a value with a line break goes by name, without a warning */
	env = nl;
	cred_plan(&in, &o, err, sizeof(err));
	CHECK(o.n_by_name == 1 && o.n_file_vars == 0 && !o.warning[0], "line break: by name");
	/* key-env: unset is the endpoint's error; set, it is copied to the first variable */
	env = second, in = base_in("claude"), in.endpoint = "ep", in.key_env = "MY_KEY";
	cred_plan(&in, &o, err, sizeof(err));
	CHECK_STR(o.error, "endpoint 'ep' takes its key from MY_KEY, which is not set: export MY_KEY in this shell, or change the endpoint (cli-sandbox endpoints add ep URL --key-env VAR)");
	env = mine;
	cred_plan(&in, &o, err, sizeof(err));
	CHECK(o.n_vars == 1 && strcmp(o.vars[0], "ANTHROPIC_API_KEY") == 0 && strcmp(cred_value(&in, "ANTHROPIC_API_KEY"), SECRET) == 0,
	      "key-env copied to the first");
	in.key_to = "ANTHROPIC_AUTH_TOKEN";
	cred_plan(&in, &o, err, sizeof(err));
	CHECK(o.n_vars == 1 && strcmp(o.vars[0], "ANTHROPIC_AUTH_TOKEN") == 0, "key-env copied to key_to");
	/* a copied variable that goes by name is named for the runner to export */
	on_memory = false;
	cred_plan(&in, &o, err, sizeof(err));
	CHECK(o.n_export_copy == 1 && strcmp(o.export_copy[0].to, "ANTHROPIC_AUTH_TOKEN") == 0 &&
		      strcmp(o.export_copy[0].from, "MY_KEY") == 0 && no_value(&o),
	      "by-name copy exported");
	on_memory = true;
	/* --copy (keys-in's direct path), unset source: nothing set */
	env = none, in = base_in("codex"), in.copy[0] = (struct cred_copy){ "MY_KEY", "OPENAI_API_KEY" }, in.n_copy = 1;
	cred_plan(&in, &o, err, sizeof(err));
	CHECK(o.error[0] && o.n_vars == 0, "copy of an unset variable sets nothing");
	/* given variables (the broker's token): in the file, values not read */
	env = none, in = base_in("codex"), in.given[0] = "CODEX_API_KEY", in.given[1] = "OPENAI_API_KEY", in.n_given = 2;
	in.broker = true, in.key_env = "UNSET_KEY";
	cred_plan(&in, &o, err, sizeof(err));
	CHECK(!o.error[0] && o.n_file_vars == 2, "broker: given in the file, key-env ignored");
	/* a name the init refuses from the file goes by name */
	in.given[0] = "CLI_SANDBOX_X_TOKEN", in.n_given = 1;
	cred_plan(&in, &o, err, sizeof(err));
	CHECK(o.n_by_name == 1 && o.n_file_vars == 0, "init's namespace: by name");
	/* ':' in a base: skipped */
	in = base_in("claude"), env = both, in.bases[0] = "/run/user/1:x";
	cred_plan(&in, &o, err, sizeof(err));
	CHECK(o.warning[0] && o.n_file_vars == 0, "':' base skipped");
	/* bad names are refused */
	in = base_in("claude"), in.given[0] = "A;B", in.n_given = 1;
	CHECK(cred_plan(&in, &o, err, sizeof(err)) == -1, "bad --var");
	in = base_in("claude"), in.key_env = "$(x)";
	CHECK(cred_plan(&in, &o, err, sizeof(err)) == -1, "bad --key-env");
}

static void writer(void)
{
	char tmpl[] = "/tmp/test-creds.XXXXXX", dir[4096], path[4200], buf[256];
	const char *names[] = { "ANTHROPIC_API_KEY", "OPENAI_API_KEY" }, *values[] = { SECRET, "x=y" };
	const char *bad[] = { "a\nb" };
	struct cs_credentials c = { 0 };
	struct cs_error err, perr;
	struct stat st;
	ssize_t n;
	int fd;

	CHECK(mkdtemp(tmpl) != NULL, "mkdtemp");
	umask(0);
	CHECK(private_dir(tmpl, "cli-sandbox-credentials", dir, sizeof(dir), NULL, &perr) == 0, "private dir: %s", perr.msg);
	umask(022);
	CHECK(stat(dir, &st) == 0 && (st.st_mode & 07777) == 0700 && st.st_uid == geteuid(), "dir mode %o", st.st_mode & 07777);
	CHECK(strlen(dir) == strlen(tmpl) + strlen("/cli-sandbox-credentials.") + 16, "random part: %s", dir);
	CHECK(cred_write_file(dir, names, values, 2, 0644) == 0, "write: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s/env", dir);
	CHECK(stat(path, &st) == 0 && (st.st_mode & 07777) == 0644, "file mode %o", st.st_mode & 07777);
	fd = open(path, O_RDONLY);
	n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	CHECK_STR(buf, "ANTHROPIC_API_KEY=" SECRET "\nOPENAI_API_KEY=x=y\n");
	/* the init's own parser takes it */
	CHECK(credentials_parse(buf, strlen(buf), &c, &err) == 0 && c.n == 2 && strcmp(credential_value(c.entries[1]), "x=y") == 0,
	      "init parses it");
	credentials_free(&c);
	/* never overwritten */
	CHECK(cred_write_file(dir, names, values, 1, 0600) == -1 && errno == EEXIST, "exists: refused");
	unlink(path);
	/* a line break: refused, nothing written */
	CHECK(cred_write_file(dir, names, bad, 1, 0600) == -1 && errno == EINVAL && access(path, F_OK) != 0, "line break refused");
	/* a link in the file's place is not followed */
	CHECK(symlink("/tmp/nowhere-creds", path) == 0, "symlink");
	CHECK(cred_write_file(dir, names, values, 1, 0600) == -1 && access("/tmp/nowhere-creds", F_OK) != 0, "link not followed");
	unlink(path);
	CHECK(cred_write_file(dir, names, values, 1, 0600) == 0 && stat(path, &st) == 0 && (st.st_mode & 07777) == 0600, "0600");
	unlink(path);
	rmdir(dir);
	/* a base that is not there: the runner's message */
	CHECK(private_dir("/nonexistent-creds", "p", dir, sizeof(dir), NULL, &perr) == -1, "no base");
	CHECK_STR(perr.msg, "cannot create a private directory /nonexistent-creds/p.* (5 random names tried): check that /nonexistent-creds exists and is writable by you");
	rmdir(tmpl);
}

int main(void)
{
	table();
	writer();
	return check_done("hostctl credentials");
}
