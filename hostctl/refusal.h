/* A pure stage's refusal: one line of text, "<problem>: <fix>", into the
 * caller's buffer; the command that called the stage prints it in its own
 * style (the runner's "cli-sandbox: ...", the program's "cli-sandbox-ctl:
 * error: ..."). */
#ifndef HOSTCTL_REFUSAL_H
#define HOSTCTL_REFUSAL_H

#include <stddef.h>

/* Formats the refusal into err (at most len bytes, cut there); returns -1. */
int refusal(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
