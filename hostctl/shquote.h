/* Shell quoting for every value a printed fix or example holds: the value
 * in single quotes, each ' as '\'' , so pasting the line runs no part of
 * it (a model named $(touch x) stays a word). */
#ifndef CLI_SANDBOX_HOSTCTL_SHQUOTE_H
#define CLI_SANDBOX_HOSTCTL_SHQUOTE_H

#include <stdbool.h>
#include <stddef.h>

/* Writes the quoted s into out; a word of only [A-Za-z0-9._:/=@%+,-] is
 * left bare (it means the same quoted or not).  False when it does not fit. */
bool sh_quote(const char *s, char *out, size_t len);

#endif
