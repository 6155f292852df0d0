/* The credentials file's writer (credentials_file.h). */
#include "hostctl/credentials_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool random_hex(char out[17])
{
	unsigned char b[8];
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	ssize_t got = fd >= 0 ? read(fd, b, sizeof(b)) : -1;

	if (fd >= 0)
		close(fd);
	if (got != (ssize_t)sizeof(b))
		return false;
	for (size_t i = 0; i < sizeof(b); i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
	return true;
}

int cred_private_dir(const char *base, const char *prefix, char *out, size_t len, char *msg, size_t msg_len)
{
	for (int try = 0; try < 5; try++) {
		char r[17];
		struct stat st;
		int fd;

		if (!random_hex(r)) {
			snprintf(msg, msg_len, "cannot read /dev/urandom for a private directory's name: check that /dev/urandom is readable");
			return -1;
		}
		if ((size_t)snprintf(out, len, "%s/%s.%s", base, prefix, r) >= len)
			break;
		if (mkdir(out, 0700) != 0)
			continue;  /* taken (by anyone: a link included), or not allowed: another name */
		/* What was made is a directory of ours, mode 0700 whatever the umask. */
		fd = open(out, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0 && fstat(fd, &st) == 0 && st.st_uid == geteuid() && fchmod(fd, 0700) == 0) {
			close(fd);
			return 0;
		}
		if (fd >= 0)
			close(fd);
		rmdir(out);
	}
	snprintf(msg, msg_len, "cannot create a private directory %s/%s.* (5 random names tried): check that %s exists and is writable by you",
		 base, prefix, base);
	return -1;
}

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
