#include "hostctl/api.h"

#include <stdio.h>
#include <string.h>

static const struct {
	unsigned bit;
	const char *word;
} apis[] = {
	{ CS_API_MESSAGES, "anthropic" }, { CS_API_CHAT, "chat" },       { CS_API_RESPONSES, "responses" },
	{ CS_API_OLLAMA, "ollama" },      { CS_API_GEMINI, "gemini" },
};

const char *api_word(unsigned api)
{
	for (size_t i = 0; i < sizeof(apis) / sizeof(apis[0]); i++)
		if (apis[i].bit == api)
			return apis[i].word;
	return NULL;
}

bool api_parse_list(const char *s, size_t n, unsigned *mask)
{
	*mask = 0;
	while (n > 0) {
		const char *comma = memchr(s, ',', n);
		size_t w = comma ? (size_t)(comma - s) : n;
		bool found = false;

		for (size_t i = 0; i < sizeof(apis) / sizeof(apis[0]); i++)
			if (strlen(apis[i].word) == w && memcmp(apis[i].word, s, w) == 0) {
				*mask |= apis[i].bit;
				found = true;
			}
		if (!found)
			return false;
		if (!comma)
			return true;
		s += w + 1;
		n -= w + 1;
		if (n == 0)
			return false;  /* a trailing comma */
	}
	return true;
}

char *api_format_list(unsigned mask, char *out, size_t len)
{
	size_t used = 0;

	out[0] = '\0';
	for (size_t i = 0; i < sizeof(apis) / sizeof(apis[0]); i++) {
		if (!(mask & apis[i].bit))
			continue;
		int k = snprintf(out + used, len - used, "%s%s", used ? "," : "", apis[i].word);
		if (k < 0 || (size_t)k >= len - used)
			break;
		used += (size_t)k;
	}
	return out;
}
