#include "base/credentials.h"

#include <stdlib.h>
#include <string.h>

#include "base/grow.h"

static bool has_suffix(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len > n && memcmp(s + len - n, suffix, n) == 0;
}

static bool has_prefix(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && memcmp(s, prefix, n) == 0;
}

bool credential_name_ok(const char *name, size_t len)
{
	if (len == 0 || len > 128 || name[0] < 'A' || name[0] > 'Z')
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = name[i];

		if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
			return false;
	}
	/* The init's configuration and the dynamic loader's variables, even
	 * should one of them end in _TOKEN one day. */
	if (has_prefix(name, len, "CLI_SANDBOX_") || has_prefix(name, len, "TASK_AGENT_") ||
	    has_prefix(name, len, "LD_"))
		return false;
	return has_suffix(name, len, "_API_KEY") || has_suffix(name, len, "_TOKEN");
}

const char *credential_value(const char *entry)
{
	return strchr(entry, '=') + 1;
}

static bool already_named(const struct cs_credentials *c, const char *name, size_t len)
{
	for (size_t i = 0; i < c->n; i++)
		if (strncmp(c->entries[i], name, len) == 0 && c->entries[i][len] == '=')
			return true;
	return false;
}

#define FIX "; the file holds one NAME=VALUE line per credential variable (host/cli-sandbox writes it: run it again, or fix the file mounted at " CS_CREDENTIALS_PATH ")"

static int fail_line(struct cs_credentials *out, struct cs_error *err, size_t line, const char *what)
{
	credentials_free(out);
	return cs_fail(err, CS_EXIT_CONFIG, "the credentials file's line %zu %s" FIX, line, what);
}

int credentials_parse(const char *data, size_t len, struct cs_credentials *out, struct cs_error *err)
{
	size_t pos = 0, line = 0;

	if (len > CS_CREDENTIALS_MAX_BYTES)
		return cs_fail(err, CS_EXIT_CONFIG, "the credentials file is larger than %d bytes" FIX,
			       CS_CREDENTIALS_MAX_BYTES);
	if (memchr(data, '\0', len))
		return cs_fail(err, CS_EXIT_CONFIG, "the credentials file contains a NUL byte" FIX);
	while (pos < len) {
		const char *s = data + pos, *nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos;
		const char *eq = memchr(s, '=', n);
		size_t name_len = eq ? (size_t)(eq - s) : 0;
		char *entry;

		line++;
		pos += n + (nl != NULL);
		/* The messages name the line, never its text: it may be a key. */
		if (n == 0)
			return fail_line(out, err, line, "is empty (no blank lines)");
		if (!eq)
			return fail_line(out, err, line, "has no '=' (NAME=VALUE)");
		if (!credential_name_ok(s, name_len))
			return fail_line(out, err, line, "does not name a credential variable (upper case, ending in _API_KEY or _TOKEN, not CLI_SANDBOX_*, TASK_AGENT_* or LD_*): pass any other variable with -e");
		if (already_named(out, s, name_len))
			return fail_line(out, err, line, "names a variable a second time");
		if (grow_array((void **)&out->entries, &out->cap, out->n + 1, sizeof(char *), 8) || !(entry = strndup(s, n))) {
			credentials_free(out);
			return cs_fail(err, CS_EXIT_OSERR, "out of memory reading the credentials file");
		}
		out->entries[out->n++] = entry;
		out->entries[out->n] = NULL;
	}
	return 0;
}

void credentials_free(struct cs_credentials *c)
{
	for (size_t i = 0; i < c->n; i++) {
		explicit_bzero(c->entries[i], strlen(c->entries[i]));
		free(c->entries[i]);
	}
	free(c->entries);
	c->entries = NULL;
	c->n = c->cap = 0;
}
