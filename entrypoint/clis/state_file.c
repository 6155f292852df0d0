#include "entrypoint/clis/state_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/config.h"

/* A state file larger than this is not something to rewrite blindly. */
#define STATE_FILE_MAX (64L << 20)
#define KEY_MAX 4096

int state_file_read(int dirfd, const char *path, const char *name, json_t **root,
		    mode_t *mode, char *what, size_t len)
{
	struct stat st;
	json_error_t jerr;
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	*root = NULL;
	if (fd < 0 && errno == ENOENT) {
		*mode = 0600;
		*root = json_object();
		return *root ? 0 : (snprintf(what, len, "out of memory"), -1);
	}
	if (fd < 0) {
		snprintf(what, len, "%s/%s cannot be opened (%s)", path, name,
			 errno == ELOOP ? "it is a symlink" : strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > STATE_FILE_MAX) {
		snprintf(what, len, "%s/%s is not a regular file of at most %ld bytes", path, name, STATE_FILE_MAX);
		close(fd);
		return -1;
	}
	*root = json_loadfd(fd, 0, &jerr);
	close(fd);
	if (!*root || !json_is_object(*root)) {
		snprintf(what, len, "%s/%s is not a JSON object (%s)", path, name, *root ? "other JSON" : jerr.text);
		json_decref(*root);
		*root = NULL;
		return -1;
	}
	*mode = st.st_mode & 0777;
	return 0;
}

int state_file_write(int dirfd, const char *path, const char *name, json_t *root, mode_t mode,
		     bool create_only, char *what, size_t len)
{
	char tmp[128];
	int fd, rc;

	snprintf(tmp, sizeof(tmp), "%s.cli-sandbox-%ld", name, (long)getpid());
	unlinkat(dirfd, tmp, 0);  /* our own name, left by a start that was killed */
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0) {
		snprintf(what, len, "%s is not writable (%s)", path, strerror(errno));
		return -1;
	}
	rc = fchmod(fd, mode) || json_dumpfd(root, fd, JSON_INDENT(2)) || write(fd, "\n", 1) != 1 || fsync(fd);
	rc = close(fd) || rc;
	if (!rc)
		rc = create_only ? linkat(dirfd, tmp, dirfd, name, 0) : renameat(dirfd, tmp, dirfd, name);
	if (rc) {
		snprintf(what, len, "%s/%s cannot be written (%s)", path, name, strerror(errno));
		unlinkat(dirfd, tmp, 0);
		return -1;
	}
	if (create_only)
		unlinkat(dirfd, tmp, 0);
	return 0;
}

int state_dir_open(const char *path, char *what, size_t len)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		snprintf(what, len, "%s cannot be opened (%s)", path, strerror(errno));
	return fd;
}

const char *state_key_of(char *const env[], const char *a, const char *b)
{
	const char *v = env_lookup(env, a);

	if ((!v || !v[0]) && b)
		v = env_lookup(env, b);
	return v && v[0] && strlen(v) < KEY_MAX ? v : NULL;
}
