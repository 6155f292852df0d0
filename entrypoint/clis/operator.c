#include "entrypoint/clis/operator.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CONFIG_MAX_BYTES (1 << 20)  /* larger config files are not read (and count as silent) */

/* The regular file at path (no symlink followed at the last step), read
 * whole and NUL-terminated; NULL when missing, unreadable or too large. */
static char *read_config(const char *path)
{
	size_t n = 0;
	struct stat st;
	char *buf;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > CONFIG_MAX_BYTES ||
	    !(buf = malloc((size_t)st.st_size + 1))) {
		close(fd);
		return NULL;
	}
	while (n < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + n, (size_t)st.st_size - n);

		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	return buf;
}

/* A TOML line "key = …" (also with a quoted key): the text after '=', or NULL. */
static const char *toml_line_value(const char *line, const char *key, size_t klen)
{
	const char *q = line;

	while (*q == ' ' || *q == '\t')
		q++;
	if (*q == '"')
		q++;
	if (strncmp(q, key, klen) != 0)
		return NULL;
	q += klen;
	q += *q == '"';
	while (*q == ' ' || *q == '\t')
		q++;
	return *q == '=' ? q + 1 : NULL;
}

bool cli_config_has_key(const char *path, const char *key, bool toml)
{
	size_t klen = strlen(key);
	bool found = false;
	char *buf = read_config(path);

	if (!buf)
		return false;
	for (char *p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (toml) {
			found = toml_line_value(p, key, klen) != NULL;
		} else {
			/* "key" anywhere on the line: JSON has no other use for it */
			char quoted[80];

			snprintf(quoted, sizeof(quoted), "\"%s\"", key);
			char *e = strchr(p, '\n');
			char save = e ? *e : '\0';

			if (e)
				*e = '\0';
			found = strstr(p, quoted) != NULL;
			if (e)
				*e = save;
		}
		if (found)
			break;
	}
	free(buf);
	return found;
}

void cli_plain_value(const char *v, char *out, size_t len)
{
	size_t n = 0;

	while (*v == ' ' || *v == '\t')
		v++;
	if (*v == '"' || *v == '\'')
		v++;
	while (*v && !strchr("\"' \t#\n\r", *v) && n + 1 < len)
		out[n++] = *v++;
	out[n] = '\0';
}

bool cli_config_values(const char *path, const char *key, bool (*fn)(const char *value, void *arg), void *arg)
{
	size_t klen = strlen(key);
	bool stopped = false;
	char *buf = read_config(path);

	if (!buf)
		return false;
	for (char *p = buf; p && *p && !stopped; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *v = toml_line_value(p, key, klen);
		char value[64];

		if (v) {
			cli_plain_value(v, value, sizeof(value));
			stopped = fn(value, arg);
		}
	}
	free(buf);
	return stopped;
}

const char *cli_option_value(char *const argv[], const char *shortopt, const char *longopt)
{
	size_t slen = shortopt ? strlen(shortopt) : 0, llen = strlen(longopt);

	for (char *const *a = argv + 1; *a; a++) {
		if (strcmp(*a, "--") == 0)
			return NULL;
		if ((shortopt && strcmp(*a, shortopt) == 0) || strcmp(*a, longopt) == 0)
			return a[1] ? a[1] : "";
		if (strncmp(*a, longopt, llen) == 0 && (*a)[llen] == '=')
			return *a + llen + 1;
		if (shortopt && strncmp(*a, shortopt, slen) == 0 && (*a)[slen] != '\0')
			return *a + slen;
	}
	return NULL;
}

bool cli_has_option(char *const argv[], const char *name)
{
	size_t len = strlen(name);

	for (char *const *a = argv + 1; *a; a++) {
		if (strcmp(*a, "--") == 0)
			return false;
		if (strncmp(*a, name, len) == 0 &&
		    ((*a)[len] == '\0' || (*a)[len] == '=' || (name[1] != '-' && len == 2)))
			return true;
	}
	return false;
}

void cli_config_path(char *out, size_t len, const struct command *plan, char *const envp[],
		     const char *var, const char *home, const char *dflt, const char *file)
{
	const char *dir = command_env_value(plan, envp, var);

	if (dir && dir[0])
		snprintf(out, len, "%s/%s", dir, file);
	else
		snprintf(out, len, "%s/%s/%s", home, dflt, file);
}
