#include "caps/user_db.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 7

/* Splits a colon-separated line in place; returns the field count. */
static size_t split_fields(char *line, char *fields[MAX_FIELDS])
{
	size_t n = 0;
	char *p = line;

	line[strcspn(line, "\n")] = '\0';
	while (n < MAX_FIELDS) {
		fields[n++] = p;
		p = strchr(p, ':');
		if (!p)
			break;
		*p++ = '\0';
	}
	return n;
}

static int parse_id(const char *s, unsigned long *out)
{
	char *end;

	if (!*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	*out = strtoul(s, &end, 10);
	return (*end || errno || *out >= UINT32_MAX) ? -1 : 0;
}

/* Whether name is one of the comma-separated members (members unchanged). */
static bool member_of(const char *members, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = members; *p; ) {
		size_t len = strcspn(p, ",");

		if (len == n && strncmp(p, name, n) == 0)
			return true;
		p += len;
		if (*p == ',')
			p++;
	}
	return false;
}

/* Both files are read a whole line at a time, whatever its length
 * (getline): a record is never split, so the tail of an overlong line can
 * never pass for a record of its own. */
static int find_passwd(const struct user_spec *spec, const char *path, struct cs_user *u,
		       bool *found, struct cs_error *err)
{
	char *line = NULL;
	size_t cap = 0;
	FILE *f = fopen(path, "re");
	int rc = 0;

	*found = false;
	if (!f)
		return cs_fail(err, CS_EXIT_CONFIG, "cannot read %s (%s); the image needs a passwd file naming CLI_SANDBOX_USER", path, strerror(errno));
	while (getline(&line, &cap, f) >= 0) {
		char *fld[MAX_FIELDS];
		unsigned long uid, gid;
		size_t name_len;

		if (split_fields(line, fld) != 7 || parse_id(fld[2], &uid) || parse_id(fld[3], &gid))
			continue;
		if (spec->by_name ? strcmp(fld[0], spec->name) != 0 : uid != spec->uid)
			continue;
		if (strlen(fld[5]) >= sizeof(u->home)) {
			rc = cs_fail(err, CS_EXIT_CONFIG, "the home directory of uid %lu in %s is longer than %zu bytes; fix the passwd entry",
				     uid, path, sizeof(u->home) - 1);
			break;
		}
		/* A name too long for a user name is no name: "" (shown as uid). */
		name_len = strlen(fld[0]);
		if (name_len < sizeof(u->name))
			memcpy(u->name, fld[0], name_len + 1);
		u->uid = (uid_t)uid;
		u->gid = (gid_t)gid;
		snprintf(u->home, sizeof(u->home), "%s", fld[5][0] == '/' ? fld[5] : "/");
		*found = true;
		break;
	}
	if (rc == 0 && ferror(f))
		rc = cs_fail(err, CS_EXIT_CONFIG, "reading %s failed; fix the file", path);
	free(line);
	fclose(f);
	return rc;
}

static void add_group(struct cs_user *u, gid_t g, bool *overflow)
{
	for (size_t i = 0; i < u->n_groups; i++)
		if (u->groups[i] == g)
			return;
	if (u->n_groups == CS_MAX_GROUPS) {
		*overflow = true;
		return;
	}
	u->groups[u->n_groups++] = g;
}

int user_gid_cmp(const void *a, const void *b)
{
	gid_t x = *(const gid_t *)a, y = *(const gid_t *)b;

	return x < y ? -1 : x > y;
}

/* Reads group_path once: the user's groups, and root's groups to exclude. */
static int scan_groups(const char *path, struct cs_user *u, gid_t *root_groups,
		       size_t *n_root, bool *overflow, struct cs_error *err)
{
	char *line = NULL;
	size_t cap = 0;
	FILE *f = fopen(path, "re");
	int rc = 0;

	*n_root = 0;
	if (!f) {
		if (errno == ENOENT)
			return 0;  /* no group file: only the primary group */
		return cs_fail(err, CS_EXIT_CONFIG, "cannot read %s (%s); fix its permissions", path, strerror(errno));
	}
	while (getline(&line, &cap, f) >= 0) {
		char *fld[MAX_FIELDS];
		unsigned long gid;

		if (split_fields(line, fld) < 4 || parse_id(fld[2], &gid))
			continue;
		if (member_of(fld[3], "root") && *n_root < CS_MAX_GROUPS)
			root_groups[(*n_root)++] = (gid_t)gid;
		if (u->name[0] && member_of(fld[3], u->name))
			add_group(u, (gid_t)gid, overflow);
	}
	if (ferror(f))
		rc = cs_fail(err, CS_EXIT_CONFIG, "reading %s failed; fix the file", path);
	free(line);
	fclose(f);
	return rc;
}

int user_resolve(const struct user_spec *spec, const char *passwd_path,
		 const char *group_path, const gid_t *inherited, size_t n_inherited,
		 struct cs_user *u, struct cs_error *err)
{
	gid_t root_groups[CS_MAX_GROUPS];
	size_t n_root;
	bool found, overflow = false;

	memset(u, 0, sizeof(*u));
	if (find_passwd(spec, passwd_path, u, &found, err))
		return -1;
	if (!found) {
		if (spec->by_name)
			return cs_fail(err, CS_EXIT_CONFIG, "CLI_SANDBOX_USER '%s' is not in %s; create the user in the image or name an existing one", spec->name, passwd_path);
		if (!spec->has_gid)
			return cs_fail(err, CS_EXIT_CONFIG, "CLI_SANDBOX_USER uid %u is not in %s; add the user, or give the group too as uid:gid", spec->uid, passwd_path);
		u->uid = spec->uid;
		snprintf(u->home, sizeof(u->home), "/");
	}
	if (spec->has_gid)
		u->gid = spec->gid;
	if (u->uid == 0)
		return cs_fail(err, CS_EXIT_CONFIG, "CLI_SANDBOX_USER resolves to uid 0 (root) in %s; the command never runs as root, name an unprivileged user", passwd_path);
	if (u->gid == 0)
		return cs_fail(err, CS_EXIT_CONFIG, "CLI_SANDBOX_USER's primary group is gid 0 (root); give the user an unprivileged group in %s or set uid:gid", passwd_path);

	add_group(u, u->gid, &overflow);
	if (scan_groups(group_path, u, root_groups, &n_root, &overflow, err))
		return -1;
	/* Groups the container was started with: keep --group-add, but never gid 0
	 * nor anything root merely happened to belong to. */
	for (size_t i = 0; i < n_inherited; i++) {
		bool roots = inherited[i] == 0;

		for (size_t j = 0; j < n_root; j++)
			roots = roots || inherited[i] == root_groups[j];
		if (!roots)
			add_group(u, inherited[i], &overflow);
	}
	if (overflow)
		return cs_fail(err, CS_EXIT_CONFIG, "CLI_SANDBOX_USER would have more than %d supplementary groups; remove some from %s", CS_MAX_GROUPS, group_path);
	for (size_t i = 0; i < u->n_groups; i++)
		if (u->groups[i] == 0)
			return cs_fail(err, CS_EXIT_CONFIG, "CLI_SANDBOX_USER is a member of gid 0 (root) in %s; remove it from that group", group_path);
	qsort(u->groups, u->n_groups, sizeof(u->groups[0]), user_gid_cmp);
	return 0;
}
