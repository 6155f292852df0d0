#include "entrypoint/clis/operator.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CONFIG_MAX_BYTES (1 << 20)  /* larger config files are not read (and count as silent) */

bool cli_config_has_key(const char *path, const char *key, bool toml)
{
	size_t klen = strlen(key), n = 0;
	struct stat st;
	bool found = false;
	char *buf;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return false;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > CONFIG_MAX_BYTES ||
	    !(buf = malloc((size_t)st.st_size + 1))) {
		close(fd);
		return false;
	}
	while (n < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + n, (size_t)st.st_size - n);

		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	for (char *p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		char *q = p;

		while (*q == ' ' || *q == '\t')
			q++;
		if (toml) {
			/* key = ..., also with a quoted key */
			if (*q == '"')
				q++;
			if (strncmp(q, key, klen) == 0) {
				q += klen;
				q += *q == '"';
				while (*q == ' ' || *q == '\t')
					q++;
				found = *q == '=';
			}
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
