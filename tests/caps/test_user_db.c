/* user_resolve(): the identity and the supplementary groups, from passwd and
 * group files the test writes itself. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/config.h"
#include "caps/user_db.h"
#include "check.h"

static char dir[] = "/tmp/cs-userdb-XXXXXX";
static char passwd_path[64], group_path[64];

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) == EOF || fclose(f) != 0) {
		perror(path);
		exit(2);
	}
}

static const char passwd[] =
	"root:x:0:0:root:/root:/bin/bash\n"
	"alice:x:1001:1001:Alice:/home/alice:/bin/sh\n"
	"bob:x:1002:0:Bob in root's group:/home/bob:/bin/sh\n"
	"carol:x:1003:1003::relative/home:/bin/sh\n"
	"broken line without fields\n"
	"mallory:x:notanumber:1004::/home/m:/bin/sh\n"
	"dave:x:1005:1005::/home/dave:/bin/sh\n"
	"toor:x:0:1006::/root:/bin/sh\n";

static const char group[] =
	"root:x:0:\n"
	"wheel:x:10:root,dave\n"
	"alice:x:1001:\n"
	"dev:x:2000:bob,alice\n"
	"ops:x:2001:alicex,xalice\n"
	"docker:x:999:\n"
	"audio:x:29:carol,alice\n"
	"admins:x:0:dave\n"
	"last:x:3000:alice";  /* no trailing newline */

/* Resolves spec (a CLI_SANDBOX_USER value) with the given inherited groups. */
static int resolve(const char *spec_text, const gid_t *inh, size_t n_inh, struct cs_user *u, struct cs_error *err)
{
	struct user_spec spec;

	memset(err, 0, sizeof(*err));
	if (user_spec_parse(spec_text, &spec, err))
		return -1;
	return user_resolve(&spec, passwd_path, group_path, inh, n_inh, u, err);
}

static int groups_are(const struct cs_user *u, const gid_t *want, size_t n)
{
	if (u->n_groups != n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (u->groups[i] != want[i])
			return 0;
	return 1;
}

static void print_groups(const char *what, const struct cs_user *u)
{
	fprintf(stderr, "  %s groups:", what);
	for (size_t i = 0; i < u->n_groups; i++)
		fprintf(stderr, " %u", (unsigned)u->groups[i]);
	fputc('\n', stderr);
}

#define CHECK_GROUPS(u, ...)                                                             \
	do {                                                                             \
		const gid_t want_[] = { __VA_ARGS__ };                                   \
		int ok_ = groups_are(&(u), want_, sizeof(want_) / sizeof(want_[0]));     \
		CHECK(ok_, "groups differ");                                             \
		if (!ok_)                                                                \
			print_groups("actual", &(u));                                    \
	} while (0)

static void test_by_name(void)
{
	struct cs_user u;
	struct cs_error err;

	CHECK(resolve("alice", NULL, 0, &u, &err) == 0, "alice: %s", err.msg);
	CHECK_STR(u.name, "alice");
	CHECK(u.uid == 1001 && u.gid == 1001, "alice is %u:%u", (unsigned)u.uid, (unsigned)u.gid);
	CHECK_STR(u.home, "/home/alice");
	/* primary 1001, dev 2000 (member), audio 29, last 3000 (no newline);
	 * not ops, whose members merely contain the name as a substring. */
	CHECK_GROUPS(u, 29, 1001, 2000, 3000);
}

static void test_by_uid(void)
{
	struct cs_user u;
	struct cs_error err;

	CHECK(resolve("1001", NULL, 0, &u, &err) == 0, "1001: %s", err.msg);
	CHECK_STR(u.name, "alice");
	CHECK(u.uid == 1001 && u.gid == 1001, "1001 is %u:%u", (unsigned)u.uid, (unsigned)u.gid);
	CHECK_GROUPS(u, 29, 1001, 2000, 3000);

	/* uid:gid with an entry: the given gid replaces the passwd one. */
	CHECK(resolve("1001:2000", NULL, 0, &u, &err) == 0, "1001:2000: %s", err.msg);
	CHECK(u.uid == 1001 && u.gid == 2000, "1001:2000 is %u:%u", (unsigned)u.uid, (unsigned)u.gid);
	CHECK_GROUPS(u, 29, 2000, 3000);
}

static void test_uid_gid_without_entry(void)
{
	struct cs_user u;
	struct cs_error err;

	CHECK(resolve("5000:5001", NULL, 0, &u, &err) == 0, "5000:5001: %s", err.msg);
	CHECK(u.uid == 5000 && u.gid == 5001, "5000:5001 is %u:%u", (unsigned)u.uid, (unsigned)u.gid);
	CHECK_STR(u.name, "");
	CHECK_STR(u.home, "/");
	CHECK_GROUPS(u, 5001);

	CHECK(resolve("5000", NULL, 0, &u, &err) == -1 && err.status == CS_EXIT_CONFIG,
	      "a bare uid without an entry must be 78, got %d", err.status);
	CHECK(strstr(err.msg, "uid:gid") != NULL, "message names the fix: %s", err.msg);
}

static void test_unknown_name(void)
{
	struct cs_user u;
	struct cs_error err;

	CHECK(resolve("nosuchuser", NULL, 0, &u, &err) == -1 && err.status == CS_EXIT_CONFIG,
	      "unknown name must be 78, got %d", err.status);
	CHECK(strstr(err.msg, "nosuchuser") != NULL, "message names the user: %s", err.msg);
	CHECK(strchr(err.msg, ';') != NULL, "message has a fix: %s", err.msg);
}

static void test_root_refused(void)
{
	struct cs_user u;
	struct cs_error err;

	CHECK(resolve("root", NULL, 0, &u, &err) == -1 && err.status == CS_EXIT_CONFIG, "root must be 78, got %d", err.status);
	CHECK(resolve("0", NULL, 0, &u, &err) == -1 && err.status == CS_EXIT_CONFIG, "uid 0 must be 78, got %d", err.status);
	CHECK(resolve("0:1000", NULL, 0, &u, &err) == -1 && err.status == CS_EXIT_CONFIG, "0:1000 must be 78, got %d", err.status);
	/* another name for uid 0 is still root */
	CHECK(resolve("toor", NULL, 0, &u, &err) == -1 && err.status == CS_EXIT_CONFIG, "toor (uid 0) must be 78, got %d", err.status);
	CHECK(strstr(err.msg, "uid 0") != NULL, "message says uid 0: %s", err.msg);
}

static void test_gid0_refused(void)
{
	struct cs_user u;
	struct cs_error err;

	CHECK(resolve("1001:0", NULL, 0, &u, &err) == -1 && err.status == CS_EXIT_CONFIG, "1001:0 must be 78, got %d", err.status);
	/* primary group 0 in passwd */
	CHECK(resolve("bob", NULL, 0, &u, &err) == -1 && err.status == CS_EXIT_CONFIG, "bob (gid 0) must be 78, got %d", err.status);
	/* a member of a gid-0 group in /etc/group */
	CHECK(resolve("dave", NULL, 0, &u, &err) == -1 && err.status == CS_EXIT_CONFIG, "dave (in gid 0 admins) must be 78, got %d", err.status);
	CHECK(strstr(err.msg, "gid 0") != NULL, "message says gid 0: %s", err.msg);
}

static void test_inherited(void)
{
	struct cs_user u;
	struct cs_error err;
	/* 999 from --group-add is kept; 0 and wheel (10, root is a member) are
	 * dropped; duplicates of the user's own groups collapse. */
	const gid_t inh[] = { 0, 999, 10, 2000, 4242, 999 };

	CHECK(resolve("alice", inh, sizeof(inh) / sizeof(inh[0]), &u, &err) == 0, "alice+inherited: %s", err.msg);
	CHECK_GROUPS(u, 29, 999, 1001, 2000, 3000, 4242);

	CHECK(resolve("5000:5001", inh, sizeof(inh) / sizeof(inh[0]), &u, &err) == 0, "5000:5001+inherited: %s", err.msg);
	CHECK_GROUPS(u, 999, 2000, 4242, 5001);
}

static void test_sorted_dedup(void)
{
	struct cs_user u;
	struct cs_error err;
	const gid_t inh[] = { 70000, 3000, 5, 1001, 70000, 5, 65534 };

	CHECK(resolve("alice", inh, sizeof(inh) / sizeof(inh[0]), &u, &err) == 0, "alice: %s", err.msg);
	CHECK_GROUPS(u, 5, 29, 1001, 2000, 3000, 65534, 70000);
	for (size_t i = 1; i < u.n_groups; i++)
		CHECK(u.groups[i - 1] < u.groups[i], "groups strictly increasing at %zu", i);
}

static void test_relative_home(void)
{
	struct cs_user u;
	struct cs_error err;

	CHECK(resolve("carol", NULL, 0, &u, &err) == 0, "carol: %s", err.msg);
	CHECK_STR(u.home, "/");
	CHECK_GROUPS(u, 29, 1003);
}

static void test_no_group_file(void)
{
	struct cs_user u;
	struct cs_error err;
	struct user_spec spec;
	const gid_t inh[] = { 0, 777 };

	CHECK(user_spec_parse("alice", &spec, &err) == 0, "parse: %s", err.msg);
	CHECK(user_resolve(&spec, passwd_path, "/nonexistent/group", inh, 2, &u, &err) == 0, "no group file: %s", err.msg);
	CHECK_GROUPS(u, 777, 1001);
}

static void test_missing_passwd(void)
{
	struct cs_user u;
	struct cs_error err;
	struct user_spec spec;

	CHECK(user_spec_parse("alice", &spec, &err) == 0, "parse: %s", err.msg);
	CHECK(user_resolve(&spec, "/nonexistent/passwd", group_path, NULL, 0, &u, &err) == -1 &&
	      err.status == CS_EXIT_CONFIG, "missing passwd must be 78, got %d", err.status);
}

static void test_too_many_groups(void)
{
	struct cs_user u;
	struct cs_error err;
	gid_t inh[CS_MAX_GROUPS + 5];

	for (size_t i = 0; i < sizeof(inh) / sizeof(inh[0]); i++)
		inh[i] = (gid_t)(10000 + i);
	CHECK(resolve("5000:5001", inh, sizeof(inh) / sizeof(inh[0]), &u, &err) == -1 && err.status == CS_EXIT_CONFIG,
	      "more than %d groups must be 78, got %d", CS_MAX_GROUPS, err.status);
	/* exactly the limit, primary group included, is fine */
	CHECK(resolve("5000:5001", inh, CS_MAX_GROUPS - 1, &u, &err) == 0, "%d groups: %s", CS_MAX_GROUPS, err.msg);
	CHECK(u.n_groups == CS_MAX_GROUPS, "n_groups %zu", u.n_groups);
}

/* Issue 11, finding 5: the red team's overlong passwd line.  Its first
 * 4,095 bytes filled the old fixed buffer, and the tail, "node:x:4242:...",
 * was parsed as a record of its own, ahead of the real node. */
static void test_overlong_lines(void)
{
	char forged_passwd[8192], *big_group;
	size_t pad, len;
	struct cs_user u;
	struct cs_error err;
	static const char head[] = "evil:x:1666:1666:";
	static const char tail[] = "node:x:4242:4242::/forged:/bin/sh\n";

	pad = 4095 - strlen(head);
	memcpy(forged_passwd, head, strlen(head));
	memset(forged_passwd + strlen(head), 'A', pad);
	len = strlen(head) + pad;
	len += (size_t)snprintf(forged_passwd + len, sizeof(forged_passwd) - len, "%s%s", tail,
				"node:x:1000:1000::/home/node:/bin/sh\n");
	CHECK(len < sizeof(forged_passwd), "fixture fits");
	write_file(passwd_path, forged_passwd);
	CHECK(resolve("node", NULL, 0, &u, &err) == 0, "node resolves: %s", err.msg);
	CHECK(u.uid == 1000 && u.gid == 1000, "node is uid %u gid %u, not the forged 4242", (unsigned)u.uid, (unsigned)u.gid);
	CHECK(strcmp(u.home, "/home/node") == 0, "home is %s, not /forged", u.home);
	CHECK(resolve("4242", NULL, 0, &u, &err) == -1, "no record has uid 4242");

	/* A group whose member list passes 64 KiB still counts the user. */
	write_file(passwd_path, passwd);
	big_group = malloc(200000);
	CHECK(big_group != NULL, "malloc");
	if (!big_group)
		return;
	len = (size_t)snprintf(big_group, 200000, "big:x:4000:");
	for (int i = 0; len < 70000; i++)
		len += (size_t)snprintf(big_group + len, 200000 - len, "member%05d,", i);
	len += (size_t)snprintf(big_group + len, 200000 - len, "alice\nsmall:x:4001:alice\n");
	write_file(group_path, big_group);
	free(big_group);
	CHECK(resolve("alice", NULL, 0, &u, &err) == 0, "alice: %s", err.msg);
	CHECK_GROUPS(u, 1001, 4000, 4001);
	write_file(group_path, group);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 2;
	}
	snprintf(passwd_path, sizeof(passwd_path), "%s/passwd", dir);
	snprintf(group_path, sizeof(group_path), "%s/group", dir);
	write_file(passwd_path, passwd);
	write_file(group_path, group);

	test_by_name();
	test_by_uid();
	test_uid_gid_without_entry();
	test_unknown_name();
	test_root_refused();
	test_gid0_refused();
	test_inherited();
	test_sorted_dedup();
	test_relative_home();
	test_no_group_file();
	test_missing_passwd();
	test_too_many_groups();
	test_overlong_lines();

	unlink(passwd_path);
	unlink(group_path);
	rmdir(dir);
	return check_done("test_user_db");
}
