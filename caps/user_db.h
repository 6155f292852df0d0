/* The unprivileged identity, read straight from /etc/passwd and /etc/group.
 *
 * No NSS: the production binary is static, and glibc's static NSS would
 * need shared modules at run time.  Paths are parameters so tests use their
 * own files. */
#ifndef CLI_SANDBOX_USER_DB_H
#define CLI_SANDBOX_USER_DB_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/config.h"
#include "base/status.h"

#define CS_MAX_GROUPS 256

struct cs_user {
	char name[CS_USER_NAME_MAX];  /* "" when given as uid:gid with no entry */
	uid_t uid;
	gid_t gid;
	char home[PATH_MAX];
	gid_t groups[CS_MAX_GROUPS];  /* final supplementary groups, sorted */
	size_t n_groups;
};

/* Resolves the spec and computes the supplementary groups: the user's
 * primary group, the groups that list the user in group_path, and the
 * `inherited` groups the process started with (docker run --group-add),
 * minus gid 0 and minus every group root belongs to in group_path. */
int user_resolve(const struct user_spec *spec, const char *passwd_path,
		 const char *group_path, const gid_t *inherited, size_t n_inherited,
		 struct cs_user *out, struct cs_error *err);

/* qsort order of gid_t: the groups are kept sorted, and compared sorted
 * after the drop (caps/verify.c). */
int user_gid_cmp(const void *a, const void *b);

#endif
