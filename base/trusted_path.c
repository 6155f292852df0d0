#include "base/trusted_path.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_SYMLINKS 40  /* the kernel's own limit (MAXSYMLINKS) */

static const char fix[] = "the profile directory, its files and every directory above must be root's and not "
			  "writable by group or others (chown root, chmod go-w), or point CLI_SANDBOX_PROFILE_DIR at one that is";

static int untrusted(struct cs_error *err, const char *path, const char *why)
{
	return cs_fail(err, CS_EXIT_CONFIG, "%.300s %s; %s", path, why, fix);
}

static bool owner_ok(const struct stat *st, uid_t also)
{
	return st->st_uid == 0 || st->st_uid == also;
}

/* A directory nobody else can change: not writable by group or others, or
 * (only above the final component) root's and sticky. */
static bool dir_mode_ok(const struct stat *st, bool final)
{
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) == 0)
		return true;
	return !final && (st->st_mode & S_ISVTX) && st->st_uid == 0;
}

static int check_node(const char *path, const struct stat *st, bool final, enum trusted_kind kind,
		      uid_t also, struct cs_error *err)
{
	char why[96];

	if (!owner_ok(st, also)) {
		snprintf(why, sizeof(why), "is owned by uid %u, not root", (unsigned)st->st_uid);
		return untrusted(err, path, why);
	}
	if (!final || kind == TRUSTED_DIR) {
		if (!S_ISDIR(st->st_mode))
			return untrusted(err, path, "is not a directory");
		if (!dir_mode_ok(st, final)) {
			snprintf(why, sizeof(why), "is writable by group or others (mode %04o)", (unsigned)(st->st_mode & 07777));
			return untrusted(err, path, why);
		}
		return 0;
	}
	if (!S_ISREG(st->st_mode))
		return untrusted(err, path, "is not a regular file");
	if (st->st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(why, sizeof(why), "is writable by group or others (mode %04o)", (unsigned)(st->st_mode & 07777));
		return untrusted(err, path, why);
	}
	return 0;
}

/* out = a "/" b[0..blen), lengths checked by the caller. */
static void join(char *out, const char *a, const char *b, size_t blen)
{
	size_t alen = strlen(a);

	memmove(out, a, alen);
	out[alen] = '/';
	memmove(out + alen + 1, b, blen);
	out[alen + 1 + blen] = '\0';
}

/* Drops the last component of a resolved path ("" stands for "/"). */
static void parent_of(char *cur)
{
	char *slash = strrchr(cur, '/');

	if (slash)
		*slash = '\0';
}

int trusted_path_check(const char *path, enum trusted_kind kind, uid_t also, struct cs_error *err)
{
	char cur[PATH_MAX], todo[2 * PATH_MAX], next[PATH_MAX], target[PATH_MAX];
	struct stat st;
	const char *p;
	int links = 0;

	if (path[0] != '/')
		return untrusted(err, path, "is not an absolute path");
	if (strlen(path) >= sizeof(todo) / 2)
		return untrusted(err, path, "is too long");
	if (lstat("/", &st) != 0)
		return cs_fail(err, CS_EXIT_CONFIG, "cannot check / (%s); %s", strerror(errno), fix);
	if (strspn(path, "/") != strlen(path) && check_node("/", &st, false, TRUSTED_DIR, also, err))
		return -1;
	snprintf(todo, sizeof(todo), "%s", path);
	cur[0] = '\0';
	p = todo;
	for (;;) {
		size_t len;
		bool final;
		int rc;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		len = strcspn(p, "/");
		final = p[len + strspn(p + len, "/")] == '\0';
		if (len == 1 && p[0] == '.') {
			p += len;
			continue;
		}
		if (len == 2 && p[0] == '.' && p[1] == '.') {
			parent_of(cur);
			p += len;
			continue;
		}
		if (strlen(cur) + 1 + len >= sizeof(cur))
			return untrusted(err, path, "is too long");
		join(next, cur, p, len);
		if (lstat(next, &st) != 0) {
			if (errno == ENOENT)
				return 1;
			return cs_fail(err, CS_EXIT_CONFIG, "cannot check %.300s (%s); %s", next, strerror(errno), fix);
		}
		if (S_ISLNK(st.st_mode)) {
			ssize_t n;
			char rest[2 * PATH_MAX];

			if (!owner_ok(&st, also)) {
				char why[96];

				snprintf(why, sizeof(why), "is a symlink owned by uid %u, not root", (unsigned)st.st_uid);
				return untrusted(err, next, why);
			}
			if (++links > MAX_SYMLINKS)
				return untrusted(err, path, "has too many levels of symlinks");
			n = readlink(next, target, sizeof(target) - 1);
			if (n < 0 || (size_t)n >= sizeof(target) - 1)
				return cs_fail(err, CS_EXIT_CONFIG, "cannot read the symlink %.300s (%s); %s", next,
					       n < 0 ? strerror(errno) : "target too long", fix);
			target[n] = '\0';
			/* Walk on through the target, then what followed the link. */
			if (strlen(target) + 1 + strlen(p + len) >= sizeof(rest))
				return untrusted(err, path, "is too long");
			join(rest, target, p + len, strlen(p + len));
			memcpy(todo, rest, strlen(rest) + 1);
			if (target[0] == '/')
				cur[0] = '\0';
			p = todo;
			continue;
		}
		rc = check_node(next, &st, final, kind, also, err);
		if (rc)
			return rc;
		memcpy(cur, next, strlen(next) + 1);
		p += len;
	}
	if (cur[0] == '\0')  /* the path was "/" itself */
		return check_node("/", &st, true, kind, also, err);
	return 0;
}
