/* A pure stage's refusal (refusal.h). */
#include <stdarg.h>
#include <stdio.h>

#include "hostctl/refusal.h"

int refusal(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}
