#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostctl/cmds.h"

int ctl_fail(const struct cs_error *err)
{
	fprintf(stderr, "cli-sandbox-ctl: error: %s\n", err->msg);
	return err->status == CS_EXIT_OSERR ? CS_EXIT_OSERR : CTL_EXIT_USAGE;
}

int ctl_usage(const char *fmt, ...)
{
	struct cs_error err;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err.msg, sizeof(err.msg), fmt, ap);
	va_end(ap);
	err.status = CS_EXIT_CONFIG;
	return ctl_fail(&err);
}

void ctl_warn(const char *fmt, ...)
{
	va_list ap;

	fputs("cli-sandbox-ctl: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int ctl_print_json(json_t *o)
{
	char *s = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII);

	json_decref(o);
	if (!s)
		return CS_EXIT_OSERR;
	puts(s);
	free(s);
	return 0;
}

bool ctl_help(int argc, char **argv, const char *help)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			fputs(help, stdout);
			return true;
		}
	return false;
}

bool ctl_take_json(int *argc, char **argv)
{
	bool found = false;
	int o = 1;

	for (int i = 1; i < *argc; i++) {
		if (strcmp(argv[i], "--json") == 0)
			found = true;
		else
			argv[o++] = argv[i];
	}
	*argc = o;
	argv[o] = NULL;
	return found;
}
