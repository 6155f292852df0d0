#include "hostctl/engine_cmd.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostctl/spawn.h"

void engine_cmd_init(struct engine_cmd *c, const char *engine)
{
	const char *g = getenv("CLI_SANDBOX_ENGINE_GLOBAL_ARGS");

	c->n = 0;
	c->argv[c->n++] = (char *)engine;
	c->argv[c->n] = NULL;
	c->store[0] = '\0';
	if (g && strlen(g) < sizeof(c->store)) {
		snprintf(c->store, sizeof(c->store), "%s", g);
		engine_cmd_words(c, c->store);
	}
}

void engine_cmd_add(struct engine_cmd *c, ...)
{
	va_list ap;
	const char *w;

	va_start(ap, c);
	while ((w = va_arg(ap, const char *)) && c->n < ENGINE_ARGV_MAX - 1)
		c->argv[c->n++] = (char *)w;
	va_end(ap);
	c->argv[c->n] = NULL;
}

void engine_cmd_words(struct engine_cmd *c, char *text)
{
	char *save = NULL;

	for (char *w = strtok_r(text, " \t\n", &save); w && c->n < ENGINE_ARGV_MAX - 1; w = strtok_r(NULL, " \t\n", &save))
		c->argv[c->n++] = w;
	c->argv[c->n] = NULL;
}

int engine_cmd_run(struct engine_cmd *c, char *out, size_t len)
{
	int rc = spawn_capture_all(c->argv, out, len, 120000);

	return rc == 0 ? 0 : rc < 0 ? 1 : rc;
}

void engine_cmd_print(struct engine_cmd *c)
{
	fputs(c->argv[0], stdout);
	for (int i = 1; i < c->n; i++) {
		fputs(" \\\n  '", stdout);
		for (const char *ch = c->argv[i]; *ch; ch++)
			if (*ch == '\'')
				fputs("'\\''", stdout);
			else
				putchar(*ch);
		putchar('\'');
	}
	putchar('\n');
}

const char *engine_last_line(const char *text)
{
	const char *nl = strrchr(text, '\n');

	return nl ? nl + 1 : text;
}
