#include "hostctl/validate.h"

#include <string.h>

static bool alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static bool all_of(const char *s, size_t n, const char *extra)
{
	for (size_t i = 0; i < n; i++)
		if (!alnum(s[i]) && (s[i] == '\0' || !strchr(extra, s[i])))
			return false;
	return true;
}

bool valid_endpoint_name(const char *s, size_t n)
{
	return n > 0 && n <= EP_NAME_MAX && alnum(s[0]) && all_of(s, n, "._-");
}

bool valid_model(const char *s, size_t n)
{
	return n > 0 && n <= EP_MODEL_MAX && alnum(s[0]) && all_of(s, n, "._:/@+-");
}

bool valid_key_env(const char *s, size_t n)
{
	return n > 0 && n <= EP_KEY_ENV_MAX && !(s[0] >= '0' && s[0] <= '9') && all_of(s, n, "_");
}

bool valid_type(const char *s, size_t n)
{
	static const char *const types[] = { "anthropic", "openai", "ollama", "gemini" };

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strlen(types[i]) == n && memcmp(types[i], s, n) == 0)
			return true;
	return false;
}

int check_url(const char *s, size_t n, struct cs_error *err)
{
	size_t scheme;
	const char *auth, *end;

	if (n >= 8 && memcmp(s, "https://", 8) == 0)
		scheme = 8;
	else if (n >= 7 && memcmp(s, "http://", 7) == 0)
		scheme = 7;
	else
		return cs_fail(err, CS_EXIT_CONFIG,
			       "bad URL: it must start with http:// or https://, e.g. http://192.168.1.10:11434");
	if (n > EP_URL_MAX)
		return cs_fail(err, CS_EXIT_CONFIG, "bad URL: longer than %d bytes; give the server's base URL", EP_URL_MAX);
	for (size_t i = 0; i < n; i++)
		if (s[i] <= ' ' || s[i] >= 0x7f || strchr("\"'`\\$;<>|&(){}^", s[i]))
			return cs_fail(err, CS_EXIT_CONFIG,
				       "bad URL: byte %zu is a blank, a quote or a shell character; give the server's base URL, e.g. http://192.168.1.10:11434",
				       i + 1);
	auth = s + scheme;
	end = memchr(auth, '/', n - scheme);
	if (!end)
		end = s + n;
	if (memchr(auth, '@', (size_t)(end - auth)))
		return cs_fail(err, CS_EXIT_CONFIG,
			       "the URL holds a user or password (user:pass@): keep secrets out of URLs; put the key in a variable and pass --key-env VAR");
	if (memchr(s, '?', n) || memchr(s, '#', n))
		return cs_fail(err, CS_EXIT_CONFIG, "bad URL: a query or fragment ('?', '#') is not a base URL; give e.g. http://192.168.1.10:11434/v1");
	if (end == auth || *auth == ':')
		return cs_fail(err, CS_EXIT_CONFIG, "bad URL: no host; give e.g. http://192.168.1.10:11434");
	return 0;
}

bool url_host(const char *url, char *out, size_t len)
{
	const char *h = strstr(url, "://"), *e;

	if (!h)
		return false;
	h += 3;
	if (*h == '[') {
		h++;
		e = strchr(h, ']');
	} else {
		e = h + strcspn(h, ":/");
	}
	if (!e || e == h || (size_t)(e - h) >= len)
		return false;
	memcpy(out, h, (size_t)(e - h));
	out[e - h] = '\0';
	return true;
}
