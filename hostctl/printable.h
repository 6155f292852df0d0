/* Text from a server or a sandbox, made safe for a terminal: no escape sequence,
 * no control byte, nothing outside ASCII reaches the screen (or a JSON string
 * built from it). One rule for ollama's pull progress, ping's report and the
 * demo's verdict. */
#ifndef HOSTCTL_PRINTABLE_H
#define HOSTCTL_PRINTABLE_H

#include <stdbool.h>
#include <stddef.h>

/* out = s (NULL reads as "") with each byte outside printable ASCII made '?',
 * cut to at most len - 1 bytes; len must be at least 1. */
void printable_copy(const char *s, char *out, size_t len);

/* The same, on s's first n bytes in place; a tab is kept when keep_tab. */
void printable_in_place(char *s, size_t n, bool keep_tab);

/* s (its first n bytes) can be one value of the runner's KEY=VALUE lines as it
 * is: no control byte (a line break, a tab, DEL); UTF-8 and other bytes above
 * 0x7f pass, where printable_copy would make them '?'. */
bool one_line_n(const char *s, size_t n);
bool one_line(const char *s);

#endif
