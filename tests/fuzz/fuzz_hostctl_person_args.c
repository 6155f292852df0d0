/* libFuzzer harness for the person's words (hostctl/person_args.h), the
 * runner's option loop: the input is the words, split at NUL bytes.  No
 * input may crash it; a refusal says something; an answer takes no more
 * words than there are, names a command the runner knows and a CLI of the
 * table, and every value it hands back as a KEY=VALUE line is one line. */
#include "fuzz.h"
#include "base/cli_names.h"
#include "hostctl/person_args.h"
#include "hostctl/printable.h"

static const char *no_env(const char *name)
{
	(void)name;
	return NULL;
}

static bool line_or_null(const char *s)
{
	return !s || one_line(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char buf[4097];
	static struct person_args a;
	static const char *const cmds[] = { "run", "shell", "build", "doctor", "up", "down", "ping", "demo" };
	char *words[64], err[1024];
	int n = 0;
	bool known = false;

	if (size >= sizeof(buf))
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	for (size_t i = 0; i <= size && n < 64;) {
		words[n++] = buf + i;
		i += strlen(buf + i) + 1;
	}
	if (size == 0)
		n = 0;
	if (person_args_parse(n, words, no_env, &a, err, sizeof(err)) != 0) {
		invariant(err[0] != '\0');
		return 0;
	}
	invariant(a.used >= 0 && a.used <= n);
	if (a.kind == PERSON_PROGRAM) {
		invariant(a.n_prog >= 1 && a.n_prog <= 8 && a.prog[0] && a.prog[0][0]);
		return 0;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		known |= strcmp(a.cmd, cmds[i]) == 0;
	invariant(known);
	invariant(!a.cli || cs_cli_by_name(a.cli));
	invariant(line_or_null(a.url) && line_or_null(a.workspace) && line_or_null(a.image) && one_line(a.allow));
	invariant(line_or_null(a.endpoint) && line_or_null(a.engine));
	return 0;
}
