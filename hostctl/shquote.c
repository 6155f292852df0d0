#include "hostctl/shquote.h"

#include <string.h>

static bool bare(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      strchr("._:/=@%+,-", *s)))
			return false;
	return true;
}

bool sh_quote(const char *s, char *out, size_t len)
{
	size_t o = 0;

	if (bare(s)) {
		if (strlen(s) >= len)
			return false;
		strcpy(out, s);
		return true;
	}
	if (len < 3)
		return false;
	out[o++] = '\'';
	for (; *s; s++) {
		const char *piece = *s == '\'' ? "'\\''" : NULL;
		size_t n = piece ? 4 : 1;

		if (o + n + 2 > len)
			return false;
		if (piece)
			memcpy(out + o, piece, n);
		else
			out[o] = *s;
		o += n;
	}
	out[o++] = '\'';
	out[o] = '\0';
	return true;
}
