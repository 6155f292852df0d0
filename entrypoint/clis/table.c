#include "entrypoint/clis/cli.h"

#include <string.h>

#include "base/path.h"

/* Each row lives in its CLI's file (entrypoint/clis/NAME.c). */
extern const struct cli cli_claude, cli_codex, cli_pi, cli_gemini, cli_opencode;

const struct cli *const cli_table[] = { &cli_claude, &cli_codex, &cli_pi, &cli_gemini, &cli_opencode, NULL };

const struct cli *cli_find(const char *argv0)
{
	const char *base = cs_basename(argv0);

	for (const struct cli *const *c = cli_table; *c; c++)
		if (strcmp(base, (*c)->name) == 0)
			return *c;
	return NULL;
}

int cli_plan_nothing(const struct cli_start *s, struct command *plan, struct cs_error *err)
{
	(void)s, (void)plan, (void)err;
	return 0;
}

int cli_no_nested_sandbox(struct command *plan, const struct userns_probe *probe, struct cs_error *err)
{
	(void)plan, (void)probe, (void)err;
	return 0;
}

enum first_run_result cli_first_run_nothing(const char *dir, char *const env[], char *what, size_t len)
{
	(void)dir, (void)env, (void)what, (void)len;
	return FIRST_RUN_UNCHANGED;
}
