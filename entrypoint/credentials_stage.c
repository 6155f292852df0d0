#include "entrypoint/credentials_stage.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FIX_MOUNT "run host/cli-sandbox again (it writes the file) or mount a regular file there read-only"

/* The whole file, at most CS_CREDENTIALS_MAX_BYTES + 1 bytes (one more
 * than allowed, so that the parser sees a file that grew too large). */
static int read_file(const char *path, char **data, size_t *len, struct cs_error *err)
{
	struct stat st;
	size_t cap = CS_CREDENTIALS_MAX_BYTES + 1, n = 0;
	char *buf;
	int fd;

	*data = NULL;
	*len = 0;
	/* O_NONBLOCK: a FIFO placed there must not hang the start. */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		if (errno == ELOOP)
			return cs_fail(err, CS_EXIT_CONFIG, "the credentials file %s is a symbolic link; " FIX_MOUNT, path);
		return cs_fail(err, CS_EXIT_CONFIG, "cannot open the credentials file %s (%s); " FIX_MOUNT, path, strerror(errno));
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return cs_fail(err, CS_EXIT_CONFIG, "the credentials file %s is not a regular file; " FIX_MOUNT, path);
	}
	if (st.st_size > CS_CREDENTIALS_MAX_BYTES) {
		close(fd);
		return cs_fail(err, CS_EXIT_CONFIG, "the credentials file %s is larger than %d bytes; " FIX_MOUNT,
			       path, CS_CREDENTIALS_MAX_BYTES);
	}
	buf = malloc(cap);
	if (!buf) {
		close(fd);
		return cs_fail(err, CS_EXIT_OSERR, "out of memory reading the credentials file");
	}
	while (n < cap) {
		ssize_t got = read(fd, buf + n, cap - n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int e = errno;

			close(fd);
			explicit_bzero(buf, n);
			free(buf);
			return cs_fail(err, CS_EXIT_CONFIG, "cannot read the credentials file %s (%s); " FIX_MOUNT, path, strerror(e));
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	*data = buf;
	*len = n;
	return 0;
}

static bool env_names(char *const envp[], const char *entry)
{
	size_t len = (size_t)(strchr(entry, '=') - entry);

	for (size_t i = 0; envp && envp[i]; i++)
		if (strncmp(envp[i], entry, len) == 0 && envp[i][len] == '=')
			return true;
	return false;
}

int credentials_stage(const char *path, char *const envp[], struct cs_credentials *creds, char ***merged,
		      struct cs_error *err)
{
	size_t len, n = 0, kept = 0;
	char *data;
	char **env;

	*merged = NULL;
	if (read_file(path, &data, &len, err))
		return -1;
	if (data) {
		int rc = credentials_parse(data, len, creds, err);

		explicit_bzero(data, len);
		free(data);
		if (rc)
			return -1;
	}
	/* The operator's own variable wins: the file's entry is dropped. */
	for (size_t i = 0; i < creds->n; i++) {
		if (env_names(envp, creds->entries[i])) {
			explicit_bzero(creds->entries[i], strlen(creds->entries[i]));
			free(creds->entries[i]);
		} else {
			creds->entries[kept++] = creds->entries[i];
		}
	}
	creds->n = kept;
	if (creds->entries)
		creds->entries[kept] = NULL;
	while (envp && envp[n])
		n++;
	env = calloc(n + creds->n + 1, sizeof(char *));
	if (!env)
		return cs_fail(err, CS_EXIT_OSERR, "out of memory preparing the command's environment");
	if (n)
		memcpy(env, envp, n * sizeof(char *));
	if (creds->n)
		memcpy(env + n, creds->entries, creds->n * sizeof(char *));
	*merged = env;
	return 0;
}
