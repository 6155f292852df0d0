#include "base/status.h"

#include <stdio.h>
#include <string.h>

int cs_fail(struct cs_error *err, int status, const char *fmt, ...)
{
	va_list ap;

	err->status = status;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	/* One line, always: a message must never smuggle a newline into the log. */
	for (char *p = err->msg; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	return -1;
}

__attribute__((format(printf, 2, 0)))
static void print_line(const char *kind, const char *fmt, va_list ap)
{
	char line[1200];

	vsnprintf(line, sizeof(line), fmt, ap);
	for (char *p = line; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	fprintf(stderr, "cli-sandbox-init: %s%s\n", kind, line);
	fflush(stderr);
}

int cs_print_error(const struct cs_error *err)
{
	fprintf(stderr, "cli-sandbox-init: error: %s\n", err->msg);
	fflush(stderr);
	return err->status;
}

static bool muted_lines;

void cs_mute(bool muted)
{
	muted_lines = muted;
}

void cs_warn(const char *fmt, ...)
{
	va_list ap;

	if (muted_lines)
		return;
	va_start(ap, fmt);
	print_line("warning: ", fmt, ap);
	va_end(ap);
}

void cs_info(const char *fmt, ...)
{
	va_list ap;

	if (muted_lines)
		return;
	va_start(ap, fmt);
	print_line("", fmt, ap);
	va_end(ap);
}
