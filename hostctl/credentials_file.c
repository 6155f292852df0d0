/* The credentials file's writer (credentials_file.h). */
#include "hostctl/credentials_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int write_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

int cred_write_file(const char *dir, const char *const names[], const char *const values[], size_t n, mode_t mode)
{
	int dfd, fd, saved;

	for (size_t i = 0; i < n; i++)
		if (!*names[i] || strchr(names[i], '=') || strchr(names[i], '\n') || strchr(values[i], '\n')) {
			errno = EINVAL;
			return -1;
		}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	fd = openat(dfd, "env", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0) {
		saved = errno;
		close(dfd);
		errno = saved;
		return -1;
	}
	/* the mode asked for, whatever the umask */
	if (fchmod(fd, mode) != 0)
		goto fail;
	for (size_t i = 0; i < n; i++)
		if (write_all(fd, names[i], strlen(names[i])) || write_all(fd, "=", 1) ||
		    write_all(fd, values[i], strlen(values[i])) || write_all(fd, "\n", 1))
			goto fail;
	if (close(fd) != 0) {
		fd = -1;
		goto fail;
	}
	close(dfd);
	return 0;
fail:
	saved = errno;
	if (fd >= 0)
		close(fd);
	unlinkat(dfd, "env", 0);
	close(dfd);
	errno = saved;
	return -1;
}
