#include "hostctl/printable.h"

#include <string.h>

static bool is_printable(unsigned char c, bool keep_tab)
{
	return (c >= 0x20 && c < 0x7f) || (keep_tab && c == '\t');
}

void printable_copy(const char *s, char *out, size_t len)
{
	size_t o = 0;

	for (; s && *s && o + 1 < len; s++)
		out[o++] = is_printable((unsigned char)*s, false) ? *s : '?';
	out[o] = '\0';
}

bool one_line_n(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] == 0x7f)
			return false;
	return true;
}

bool one_line(const char *s)
{
	return one_line_n(s, strlen(s));
}

void printable_in_place(char *s, size_t n, bool keep_tab)
{
	for (size_t i = 0; i < n; i++)
		if (!is_printable((unsigned char)s[i], keep_tab))
			s[i] = '?';
}
