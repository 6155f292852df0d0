/* The credentials file (base/credentials.h, entrypoint/credentials_stage.h):
 * the accepted names, the format and hostile content, where no message ever
 * holds a value, and the stage: O_NOFOLLOW, a regular file only, the size
 * bound, an absent file, and the operator's own variable winning. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/credentials.h"
#include "check.h"
#include "entrypoint/credentials_stage.h"

#define SECRET "sk-unit-secret-VALUE"

static void test_names(void)
{
	static const char *const good[] = { "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY",
					     "COPILOT_GITHUB_TOKEN", "GOOGLE_CLOUD_API_KEY", "X_TOKEN", "A1_API_KEY" };
	static const char *const bad[] = { "", "PATH", "HOME", "NODE_OPTIONS", "LD_PRELOAD", "LD_AUDIT_TOKEN",
					   "SKIP_EGRESS_FIREWALL", "CLI_SANDBOX_EGRESS_PROFILE", "CLI_SANDBOX_X_TOKEN",
					   "TASK_AGENT_MODEL_BASE_URL", "TASK_AGENT_API_KEY", "_API_KEY", "_TOKEN", "TOKEN",
					   "anthropic_api_key", "1_TOKEN", "A-B_TOKEN", "A B_TOKEN", "ANTHROPIC_BASE_URL",
					   "BASH_ENV", "NODE_EXTRA_CA_CERTS", "A_TOKEN ", "A_API_KEYS" };

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		CHECK_NAMED(good[i], credential_name_ok(good[i], strlen(good[i])), "refused");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK_NAMED(bad[i], !credential_name_ok(bad[i], strlen(bad[i])), "accepted");
}

struct parse_case {
	const char *what;
	const char *data;
	size_t len;       /* 0: strlen(data) */
	int n;            /* entries, or -1: refused with 78 */
	const char *expect;  /* refusal: fragment of the message */
};

static const struct parse_case parse_cases[] = {
	{ "empty file", "", 0, 0 },
	{ "one line", "ANTHROPIC_API_KEY=" SECRET "\n", 0, 1 },
	{ "no final newline", "ANTHROPIC_API_KEY=" SECRET, 0, 1 },
	{ "two lines", "ANTHROPIC_API_KEY=" SECRET "\nOPENAI_API_KEY=o\n", 0, 2 },
	{ "value with '=', spaces, quotes, any byte but NUL and newline", "OPENAI_API_KEY= a=b \"'$(x)`\x01\xff\r\n", 0, 1 },
	{ "empty value", "OPENAI_API_KEY=\n", 0, 1 },
	{ "blank line", "OPENAI_API_KEY=" SECRET "\n\n", 0, -1, "line 2 is empty" },
	{ "no '='", SECRET "\n", 0, -1, "line 1 has no '='" },
	{ "a comment", "# keys\nOPENAI_API_KEY=x\n", 0, -1, "line 1" },
	{ "PATH", "PATH=/tmp/evil\n", 0, -1, "line 1 does not name a credential variable" },
	{ "LD_PRELOAD", "OPENAI_API_KEY=x\nLD_PRELOAD=/tmp/x.so\n", 0, -1, "line 2 does not name" },
	{ "NODE_OPTIONS", "NODE_OPTIONS=--require=/tmp/x\n", 0, -1, "does not name" },
	{ "the init's own", "CLI_SANDBOX_EGRESS_PROFILE=interactive\n", 0, -1, "does not name" },
	{ "SKIP_EGRESS_FIREWALL", "SKIP_EGRESS_FIREWALL=true\n", 0, -1, "does not name" },
	{ "TASK_AGENT_", "TASK_AGENT_MODEL_BASE_URL=http://1.2.3.4\n", 0, -1, "does not name" },
	{ "space before '='", "OPENAI_API_KEY =x\n", 0, -1, "does not name" },
	{ "export prefix", "export OPENAI_API_KEY=x\n", 0, -1, "does not name" },
	{ "empty name", "=" SECRET "\n", 0, -1, "does not name" },
	{ "twice", "OPENAI_API_KEY=a\nOPENAI_API_KEY=b\n", 0, -1, "line 2 names a variable a second time" },
	{ "NUL in a value", "OPENAI_API_KEY=a\0b\n", 19, -1, "NUL byte" },
	{ "CRLF ends: the name is fine, the value keeps its \\r", "OPENAI_API_KEY=a\r\n", 0, 1 },
};

static void test_parse(void)
{
	for (size_t i = 0; i < sizeof(parse_cases) / sizeof(parse_cases[0]); i++) {
		const struct parse_case *c = &parse_cases[i];
		struct cs_credentials cr = { 0 };
		struct cs_error err = { 0 };
		int rc = credentials_parse(c->data, c->len ? c->len : strlen(c->data), &cr, &err);

		if (c->n < 0) {
			CHECK_NAMED(c->what, rc == -1 && err.status == CS_EXIT_CONFIG && strstr(err.msg, c->expect) &&
					      !strstr(err.msg, SECRET) && !strchr(err.msg, '\n') && cr.n == 0 && !cr.entries,
				    "rc %d status %d msg '%s'", rc, err.status, err.msg);
		} else {
			CHECK_NAMED(c->what, rc == 0 && cr.n == (size_t)c->n && (cr.n == 0 || cr.entries[cr.n] == NULL),
				    "rc %d n %zu msg '%s'", rc, cr.n, err.msg);
		}
		credentials_free(&cr);
	}
	{
		struct cs_credentials cr = { 0 };
		struct cs_error err = { 0 };
		const char *d = "OPENAI_API_KEY= a=b\r\n";

		CHECK(credentials_parse(d, strlen(d), &cr, &err) == 0 && cr.n == 1 &&
		      strcmp(cr.entries[0], "OPENAI_API_KEY= a=b\r") == 0 && strcmp(credential_value(cr.entries[0]), " a=b\r") == 0,
		      "value not kept byte for byte");
		credentials_free(&cr);
	}
	{
		/* Over the bound: refused, whatever it holds. */
		size_t n = CS_CREDENTIALS_MAX_BYTES + 1;
		char *big = malloc(n);
		struct cs_credentials cr = { 0 };
		struct cs_error err = { 0 };

		memset(big, 'A', n);
		CHECK(credentials_parse(big, n, &cr, &err) == -1 && err.status == CS_EXIT_CONFIG && strstr(err.msg, "larger than"),
		      "%s", err.msg);
		free(big);
	}
}

static char dir[64];

static const char *write_file(const char *name, const char *data, size_t len)
{
	static char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || (len && write(fd, data, len) != (ssize_t)len) || close(fd) != 0)
		abort();
	return path;
}

static int stage(const char *path, char *const envp[], struct cs_credentials *cr, char ***merged, struct cs_error *err)
{
	memset(cr, 0, sizeof(*cr));
	memset(err, 0, sizeof(*err));
	return credentials_stage(path, envp, cr, merged, err);
}

static void test_stage(void)
{
	char *envp[] = { "PATH=/usr/bin", "OPENAI_API_KEY=the-operators-own", NULL };
	struct cs_credentials cr;
	struct cs_error err;
	char **merged;
	char path[128], link[128];

	snprintf(dir, sizeof(dir), "/tmp/test_credentials.XXXXXX");
	if (!mkdtemp(dir))
		abort();
	snprintf(path, sizeof(path), "%s/absent", dir);
	CHECK_NAMED("an absent file: nothing added", stage(path, envp, &cr, &merged, &err) == 0 && cr.n == 0 &&
		    merged && merged[0] == envp[0] && merged[1] == envp[1] && merged[2] == NULL, "%s", err.msg);
	free(merged);
	credentials_free(&cr);

	snprintf(path, sizeof(path), "%s", write_file("env", "ANTHROPIC_API_KEY=" SECRET "\nOPENAI_API_KEY=from-file\n", strlen("ANTHROPIC_API_KEY=" SECRET "\nOPENAI_API_KEY=from-file\n")));
	CHECK_NAMED("the file's variable is added; the operator's own of the same name wins",
		    stage(path, envp, &cr, &merged, &err) == 0 && cr.n == 1 &&
		    strcmp(cr.entries[0], "ANTHROPIC_API_KEY=" SECRET) == 0 &&
		    merged[0] == envp[0] && merged[1] == envp[1] && strcmp(merged[2], "ANTHROPIC_API_KEY=" SECRET) == 0 &&
		    merged[3] == NULL, "rc n=%zu %s", cr.n, err.msg);
	free(merged);
	credentials_free(&cr);

	snprintf(link, sizeof(link), "%s/link", dir);
	CHECK(symlink(path, link) == 0, "symlink");
	CHECK_NAMED("a symbolic link is refused (O_NOFOLLOW)", stage(link, envp, &cr, &merged, &err) == -1 &&
		    err.status == CS_EXIT_CONFIG && strstr(err.msg, "symbolic link") && !merged, "%s", err.msg);

	snprintf(link, sizeof(link), "%s/fifo", dir);
	CHECK(mkfifo(link, 0600) == 0, "mkfifo");
	CHECK_NAMED("a FIFO is refused at once, not waited on", stage(link, envp, &cr, &merged, &err) == -1 &&
		    err.status == CS_EXIT_CONFIG && strstr(err.msg, "not a regular file"), "%s", err.msg);
	unlink(link);

	CHECK_NAMED("a directory is refused", stage(dir, envp, &cr, &merged, &err) == -1 &&
		    err.status == CS_EXIT_CONFIG && strstr(err.msg, "not a regular file"), "%s", err.msg);

	{
		size_t n = CS_CREDENTIALS_MAX_BYTES + 10;
		char *big = malloc(n);

		memset(big, 'x', n);
		write_file("big", big, n);
		free(big);
		snprintf(link, sizeof(link), "%s/big", dir);
		CHECK_NAMED("a file over 64 KiB is refused", stage(link, envp, &cr, &merged, &err) == -1 &&
			    err.status == CS_EXIT_CONFIG && strstr(err.msg, "larger than"), "%s", err.msg);
		unlink(link);
	}
	write_file("env", "PATH=/tmp/evil\n", 15);
	CHECK_NAMED("a hostile name: 78, and nothing merged", stage(path, envp, &cr, &merged, &err) == -1 &&
		    err.status == CS_EXIT_CONFIG && !merged && cr.n == 0, "%s", err.msg);
	unlink(path);
	snprintf(link, sizeof(link), "%s/link", dir);
	unlink(link);
	rmdir(dir);
}

int main(void)
{
	test_names();
	test_parse();
	test_stage();
	return check_done("test_credentials");
}
