#include "profiles/json_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int json_text_load(const char *text, size_t len, const char *name, json_t **out,
		   struct cs_error *err)
{
	json_error_t jerr;

	*out = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!*out)
		return cs_fail(err, CS_EXIT_CONFIG, "%s is not valid JSON: line %d column %d: %.120s; fix or replace the file",
			       name, jerr.line, jerr.column, jerr.text);
	return 0;
}

static int read_all(int fd, char *buf, size_t size)
{
	size_t got = 0;

	while (got < size) {
		ssize_t n = read(fd, buf + got, size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	return 0;
}

int json_file_read(const char *path, size_t max_bytes, char **text, size_t *len, struct cs_error *err)
{
	struct stat st;
	char *buf;
	int fd;

	*text = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 && errno == ENOENT)
		return 1;
	if (fd < 0)
		return cs_fail(err, CS_EXIT_CONFIG, "cannot open %s: %s; make it readable or remove it", path, strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return cs_fail(err, CS_EXIT_CONFIG, "%s is not a regular file; replace it with the data file or remove it", path);
	}
	if ((unsigned long long)st.st_size > max_bytes) {
		close(fd);
		return cs_fail(err, CS_EXIT_CONFIG, "%s is larger than %zu bytes; that is not a range or profile file, replace it",
			       path, max_bytes);
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		return cs_fail(err, CS_EXIT_OSERR, "out of memory reading %s", path);
	}
	if (read_all(fd, buf, (size_t)st.st_size)) {
		free(buf);
		close(fd);
		return cs_fail(err, CS_EXIT_CONFIG, "cannot read %s completely; check the file and its permissions", path);
	}
	close(fd);
	buf[st.st_size] = '\0';
	*text = buf;
	*len = (size_t)st.st_size;
	return 0;
}

int json_file_load(const char *path, size_t max_bytes, json_t **out, struct cs_error *err)
{
	char *text = NULL;
	size_t len = 0;  /* set only on success; gcc -O3 cannot tell */
	int rc = json_file_read(path, max_bytes, &text, &len, err);

	*out = NULL;
	if (rc)
		return rc;
	rc = json_text_load(text, len, path, out, err);
	free(text);
	return rc;
}
