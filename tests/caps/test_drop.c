/* privileges_drop() and privileges_verify() on the real kernel (root only).
 *
 * Every scenario runs in a forked child, which shapes its starting
 * capabilities with libcap-ng, calls the code under test, then checks the
 * result independently of caps/verify.c: by parsing /proc/self/status.
 * The failure scenarios load a seccomp filter in the child that refuses a
 * call, or answers it with success without making it (a kernel or library
 * that lies), and check that the drop stops with 71 and its line. */
#include <cap-ng.h>
#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "caps/drop.h"
#include "caps/verify.h"
#include "check.h"

#define SKIP 77
#define USER_ID 54321

/* Child-side assertion: a scenario runs in a forked child, whose checks
 * the parent cannot count; each failure becomes TAP diagnostics ("# "
 * lines, flushed before the child's _exit) and the child's exit status
 * carries the count, which the parent's CHECK_NAMED reports. */
static int child_failures;
#define EXPECT(cond, ...)                                                      \
	do {                                                                   \
		if (!(cond)) {                                                 \
			child_failures++;                                      \
			check_diag("child %s:%d: EXPECT(%s) failed:", __FILE__, \
				   __LINE__, #cond);                           \
			check_diag(__VA_ARGS__);                               \
		}                                                              \
	} while (0)

struct status {
	unsigned long long inh, prm, eff, bnd, amb;
	unsigned uid[4], gid[4];
	int nnp;
	gid_t groups[CS_MAX_GROUPS];
	size_t n_groups;
};

static int read_status(struct status *s)
{
	char line[4096];
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return -1;
	memset(s, 0, sizeof(*s));
	s->nnp = -1;
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "CapInh: %llx", &s->inh);
		sscanf(line, "CapPrm: %llx", &s->prm);
		sscanf(line, "CapEff: %llx", &s->eff);
		sscanf(line, "CapBnd: %llx", &s->bnd);
		sscanf(line, "CapAmb: %llx", &s->amb);
		sscanf(line, "NoNewPrivs: %d", &s->nnp);
		sscanf(line, "Uid: %u %u %u %u", &s->uid[0], &s->uid[1], &s->uid[2], &s->uid[3]);
		sscanf(line, "Gid: %u %u %u %u", &s->gid[0], &s->gid[1], &s->gid[2], &s->gid[3]);
		if (strncmp(line, "Groups:", 7) == 0) {
			char *p = line + 7, *end;

			for (;;) {
				unsigned long g = strtoul(p, &end, 10);

				if (end == p || s->n_groups == CS_MAX_GROUPS)
					break;
				s->groups[s->n_groups++] = (gid_t)g;
				p = end;
			}
		}
	}
	fclose(f);
	return 0;
}

static struct cs_user test_user(void)
{
	struct cs_user u;

	memset(&u, 0, sizeof(u));
	u.uid = USER_ID;
	u.gid = USER_ID;
	u.groups[0] = 4242;
	u.groups[1] = USER_ID;
	u.n_groups = 2;
	snprintf(u.home, sizeof(u.home), "/");
	return u;
}

/* Removes caps from the effective and permitted sets of this process. */
static void without(int cap1, int cap2)
{
	if (capng_get_caps_process() != 0) {
		perror("capng_get_caps_process");
		_exit(2);
	}
	capng_update(CAPNG_DROP, CAPNG_EFFECTIVE | CAPNG_PERMITTED, (unsigned)cap1);
	if (cap2 >= 0)
		capng_update(CAPNG_DROP, CAPNG_EFFECTIVE | CAPNG_PERMITTED, (unsigned)cap2);
	if (capng_apply(CAPNG_SELECT_CAPS) != 0) {
		perror("capng_apply");
		_exit(2);
	}
}

static void expect_dropped(const struct status *s, const struct cs_user *u, bool bounding_empty)
{
	EXPECT(s->inh == 0 && s->prm == 0 && s->eff == 0, "inh=%llx prm=%llx eff=%llx", s->inh, s->prm, s->eff);
	EXPECT(s->amb == 0, "amb=%llx", s->amb);
	EXPECT(s->nnp == 1, "NoNewPrivs=%d", s->nnp);
	for (int i = 0; i < 4; i++) {
		EXPECT(s->uid[i] == u->uid, "Uid[%d]=%u", i, s->uid[i]);
		EXPECT(s->gid[i] == u->gid, "Gid[%d]=%u", i, s->gid[i]);
	}
	EXPECT(s->n_groups == u->n_groups, "%zu groups", s->n_groups);
	for (size_t i = 0; i < s->n_groups && i < u->n_groups; i++)
		EXPECT(s->groups[i] == u->groups[i], "group %zu is %u", i, (unsigned)s->groups[i]);
	if (bounding_empty)
		EXPECT(s->bnd == 0, "CapBnd=%llx", s->bnd);
	EXPECT(prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) == 0, "dumpable");
	EXPECT(setuid(0) == -1 && errno == EPERM, "setuid(0) must fail with EPERM");
}

/* Full root: everything dropped, bounding set empty, securebits locked. */
static int scenario_full_root(void)
{
	struct cs_user u = test_user();
	struct drop_result res;
	struct cs_error err = { 0 };
	struct status s;
	int bits;

	EXPECT(privileges_drop(&u, &res, &err) == 0, "drop: %s", err.msg);
	EXPECT(res.bounding_cleared, "bounding_cleared");
	EXPECT(read_status(&s) == 0, "read /proc/self/status");
	expect_dropped(&s, &u, true);
	bits = prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);
	EXPECT(bits >= 0 && ((unsigned)bits & CS_SECUREBITS_WANTED) == CS_SECUREBITS_WANTED, "securebits %#x", (unsigned)bits);
	EXPECT(!(bits & SECBIT_KEEP_CAPS), "keepcaps securebit");
	return child_failures;
}

/* Ambient capabilities raised before the drop are gone after it. */
static int scenario_ambient(void)
{
	struct cs_user u = test_user();
	struct drop_result res;
	struct cs_error err = { 0 };
	struct status s;

	/* libcap-ng 0.8.5 (Debian 13) marks it warn_unused_result. */
	EXPECT(capng_get_caps_process() == 0, "read the process's capabilities");
	capng_update(CAPNG_ADD, CAPNG_INHERITABLE, CAP_NET_ADMIN);
	capng_update(CAPNG_ADD, CAPNG_INHERITABLE, CAP_CHOWN);
	EXPECT(capng_apply(CAPNG_SELECT_CAPS) == 0, "raise inheritable");
	EXPECT(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_NET_ADMIN, 0, 0) == 0, "ambient raise: %s", strerror(errno));
	EXPECT(read_status(&s) == 0 && s.amb != 0 && s.inh != 0, "set up: amb=%llx inh=%llx", s.amb, s.inh);
	EXPECT(privileges_drop(&u, &res, &err) == 0, "drop: %s", err.msg);
	EXPECT(read_status(&s) == 0, "read /proc/self/status");
	expect_dropped(&s, &u, true);
	return child_failures;
}

/* Without CAP_SETPCAP: the drop succeeds, but the bounding set is left. */
static int scenario_no_setpcap(void)
{
	struct cs_user u = test_user();
	struct drop_result res;
	struct cs_error err = { 0 };
	struct status before, s;

	without(CAP_SETPCAP, -1);
	EXPECT(read_status(&before) == 0 && before.bnd != 0, "bounding set before");
	EXPECT(privileges_drop(&u, &res, &err) == 0, "drop: %s", err.msg);
	EXPECT(!res.bounding_cleared, "bounding_cleared must be false without CAP_SETPCAP");
	EXPECT(read_status(&s) == 0, "read /proc/self/status");
	expect_dropped(&s, &u, false);
	EXPECT(s.bnd == before.bnd, "bounding set changed: %llx -> %llx", before.bnd, s.bnd);
	return child_failures;
}

/* Without CAP_SETUID or CAP_SETGID: 71, a message naming the fix, and
 * nothing changed (the process is still root with its groups). */
static int scenario_missing(int cap, const char *name)
{
	struct cs_user u = test_user();
	struct drop_result res;
	struct cs_error err = { 0 };
	struct status s;

	without(cap, -1);
	EXPECT(privileges_drop(&u, &res, &err) == -1, "drop without %s must fail", name);
	EXPECT(err.status == CS_EXIT_OSERR, "status %d", err.status);
	EXPECT(strstr(err.msg, "--cap-add=SETUID --cap-add=SETGID") != NULL, "message: %s", err.msg);
	EXPECT(strstr(err.msg, name) != NULL, "message names %s: %s", name, err.msg);
	EXPECT(read_status(&s) == 0 && s.uid[0] == 0 && s.uid[1] == 0 && s.gid[1] == 0, "ids changed");
	EXPECT(s.nnp == 0, "no_new_privs set although the drop stopped first");
	return child_failures;
}

static int scenario_missing_setuid(void) { return scenario_missing(CAP_SETUID, "CAP_SETUID"); }
static int scenario_missing_setgid(void) { return scenario_missing(CAP_SETGID, "CAP_SETGID"); }

/* A filter in this child: prctl(option, arg2 OP arg) fails with errno
 * (0: it returns success and does nothing).  Loaded without no_new_privs
 * (root may), so the drop under test is the one that sets it. */
static void deny_prctl(int option, enum scmp_compare op, unsigned long arg, int errno_value)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);

	if (!ctx || seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0) != 0 ||
	    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(errno_value), SCMP_SYS(prctl), 2,
			     SCMP_A0(SCMP_CMP_EQ, (unsigned long)option, 0), SCMP_A1(op, arg, 0)) != 0 ||
	    seccomp_load(ctx) != 0) {
		perror("deny_prctl");
		_exit(2);
	}
	seccomp_release(ctx);
}

/* ... and a whole system call. */
static void deny_syscall(int nr, int errno_value)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);

	if (!ctx || seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0) != 0 ||
	    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(errno_value), nr, 0) != 0 || seccomp_load(ctx) != 0) {
		perror("deny_syscall");
		_exit(2);
	}
	seccomp_release(ctx);
}

/* The drop fails with 71 and a message containing want. */
static void expect_refused(const char *want)
{
	struct cs_user u = test_user();
	struct drop_result res;
	struct cs_error err = { 0 };

	EXPECT(privileges_drop(&u, &res, &err) == -1, "the drop must fail (want '%s')", want);
	EXPECT(err.status == CS_EXIT_OSERR, "status %d", err.status);
	EXPECT(strstr(err.msg, want) != NULL, "message: %s (want '%s')", err.msg, want);
}

/* A refused PR_CAPBSET_DROP stops the drop before the ids change. */
static int scenario_bset_drop_refused(void)
{
	struct status s;

	deny_prctl(PR_CAPBSET_DROP, SCMP_CMP_GE, 5, EPERM);
	expect_refused("emptying the capability bounding set failed (PR_CAPBSET_DROP(5): Operation not permitted)");
	EXPECT(read_status(&s) == 0 && s.uid[1] == 0 && s.gid[1] == 0, "ids changed");
	return child_failures;
}

/* PR_CAPBSET_DROP says yes and does nothing: the read-back catches it. */
static int scenario_bset_drop_ignored(void)
{
	deny_prctl(PR_CAPBSET_DROP, SCMP_CMP_GE, 0, 0);
	expect_refused("capability 0 is still in the bounding set although CAP_SETPCAP was held");
	return child_failures;
}

/* A policy that hides capabilities 5 and up (EINVAL, "no such capability",
 * for both reading and dropping them) cannot shorten the drop: libcap-ng
 * knows the kernel's real list, so dropping 5 is attempted and fails. */
static int scenario_bset_hidden(void)
{
	deny_prctl(PR_CAPBSET_READ, SCMP_CMP_GE, 5, EINVAL);
	deny_prctl(PR_CAPBSET_DROP, SCMP_CMP_GE, 5, EINVAL);
	expect_refused("PR_CAPBSET_DROP(5): Invalid argument");
	return child_failures;
}

/* No capability can be listed at all: 71 before anything changed. */
static int scenario_bset_unreadable(void)
{
	deny_prctl(PR_CAPBSET_READ, SCMP_CMP_GE, 0, EPERM);
	expect_refused("PR_CAPBSET_READ cannot list the capabilities (Operation not permitted)");
	return child_failures;
}

/* The list was probed earlier in the process (kept), the read-back after
 * the drop is refused: the verification fails, it does not skip. */
static int scenario_bset_readback_refused(void)
{
	EXPECT(caps_last_cap() >= CAP_SETPCAP, "probe before the filter");
	deny_prctl(PR_CAPBSET_READ, SCMP_CMP_GE, 0, EPERM);
	expect_refused("PR_CAPBSET_READ(0) failed after the drop");
	return child_failures;
}

/* The ambient read-back is refused. */
static int scenario_ambient_unreadable(void)
{
	deny_prctl(PR_CAP_AMBIENT, SCMP_CMP_EQ, PR_CAP_AMBIENT_IS_SET, EPERM);
	expect_refused("PR_CAP_AMBIENT_IS_SET(0) failed after the drop");
	return child_failures;
}

/* capset says yes and does nothing: capget afterwards catches it. */
static int scenario_capset_ignored(void)
{
	deny_syscall(SCMP_SYS(capset), 0);
	expect_refused("capabilities remain after the drop");
	return child_failures;
}

/* The starting capabilities cannot be read: 71, nothing changed. */
static int scenario_capget_refused(void)
{
	struct status s;

	deny_syscall(SCMP_SYS(capget), EPERM);
	expect_refused("cannot read the process's capabilities (Operation not permitted)");
	EXPECT(read_status(&s) == 0 && s.uid[1] == 0 && s.bnd != 0, "the drop changed something before it stopped");
	return child_failures;
}

/* PID 1's order: the bounding set emptied before the fork, then each
 * process's own drop, which makes no PR_CAPBSET_DROP call (refused here)
 * and still finds the set empty and the securebits locked. */
static int scenario_bounding_before_fork(void)
{
	struct cs_user u = test_user();
	struct drop_result res;
	struct cs_error err = { 0 };
	struct status s;
	pid_t pid;
	int st;

	EXPECT(privileges_empty_bounding_set(&err) == 0, "empty the bounding set: %s", err.msg);
	EXPECT(read_status(&s) == 0 && s.bnd == 0 && s.uid[1] == 0 && s.eff != 0, "after: CapBnd=%llx uid %u CapEff=%llx", s.bnd, s.uid[1], s.eff);
	EXPECT(privileges_empty_bounding_set(&err) == 0, "a second call: %s", err.msg);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		deny_prctl(PR_CAPBSET_DROP, SCMP_CMP_GE, 0, EPERM);
		EXPECT(privileges_drop(&u, &res, &err) == 0, "forked child's drop: %s", err.msg);
		EXPECT(res.bounding_cleared, "bounding_cleared");
		EXPECT(read_status(&s) == 0, "read /proc/self/status");
		expect_dropped(&s, &u, true);
		_exit(child_failures ? 1 : 0);
	}
	EXPECT(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0, "the forked child's drop failed (%#x)", st);
	deny_prctl(PR_CAPBSET_DROP, SCMP_CMP_GE, 0, EPERM);
	EXPECT(privileges_drop(&u, &res, &err) == 0, "own drop: %s", err.msg);
	EXPECT(read_status(&s) == 0, "read /proc/self/status");
	expect_dropped(&s, &u, true);
	return child_failures;
}

/* ... refused: 71 with the drop's line, nothing else changed. */
static int scenario_bounding_before_fork_refused(void)
{
	struct cs_error err = { 0 };
	struct status s;

	deny_prctl(PR_CAPBSET_DROP, SCMP_CMP_GE, 5, EPERM);
	EXPECT(privileges_empty_bounding_set(&err) == -1, "must fail");
	EXPECT(err.status == CS_EXIT_OSERR && strstr(err.msg, "emptying the capability bounding set failed (PR_CAPBSET_DROP(5)"), "message: %s", err.msg);
	EXPECT(read_status(&s) == 0 && s.uid[1] == 0 && s.nnp == 0, "something else changed");
	return child_failures;
}

/* ... and without CAP_SETPCAP it does nothing; the drop leaves the set. */
static int scenario_bounding_before_fork_no_setpcap(void)
{
	struct cs_user u = test_user();
	struct drop_result res;
	struct cs_error err = { 0 };
	struct status before, s;

	without(CAP_SETPCAP, -1);
	EXPECT(read_status(&before) == 0, "read /proc/self/status");
	EXPECT(privileges_empty_bounding_set(&err) == 0, "without CAP_SETPCAP: %s", err.msg);
	EXPECT(read_status(&s) == 0 && s.bnd == before.bnd && s.bnd != 0, "bounding set changed: %llx -> %llx", before.bnd, s.bnd);
	EXPECT(privileges_drop(&u, &res, &err) == 0 && !res.bounding_cleared, "drop: %s", err.msg);
	return child_failures;
}

/* privileges_none(): only a process with no uid 0 and no capability in
 * its permitted or effective set holds nothing.  A permitted set without
 * the effective one is not nothing: capset could raise it again. */
static int scenario_none(void)
{
	struct cs_user u = test_user();
	struct status s;

	EXPECT(!privileges_none(), "root holds something");
	EXPECT(prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) == 0, "keepcaps");
	EXPECT(setresgid(u.gid, u.gid, u.gid) == 0 && setresuid(u.uid, u.uid, u.uid) == 0, "set ids");
	EXPECT(read_status(&s) == 0 && s.eff == 0 && s.prm != 0, "set up: effective empty, permitted kept (eff=%llx prm=%llx)", s.eff, s.prm);
	EXPECT(!privileges_none(), "a permitted set without the effective one is not nothing");
	return child_failures;
}

static int scenario_none_after_drop(void)
{
	struct cs_user u = test_user();
	struct drop_result res;
	struct cs_error err = { 0 };

	EXPECT(privileges_drop(&u, &res, &err) == 0, "drop: %s", err.msg);
	EXPECT(privileges_none(), "nothing is left after the drop");
	return child_failures;
}

/* The resolver child's drop: to the user, nothing left; and 71 when the
 * starting capabilities cannot be read. */
static int scenario_isolate(void)
{
	struct cs_user u = test_user();
	struct cs_error err = { 0 };
	struct status s;

	EXPECT(privileges_isolate(&u, &err) == 0, "isolate: %s", err.msg);
	EXPECT(read_status(&s) == 0 && s.prm == 0 && s.eff == 0 && s.inh == 0 && s.amb == 0, "capabilities left");
	EXPECT(s.uid[0] == u.uid && s.uid[1] == u.uid && s.gid[1] == u.gid && s.n_groups == 0 && s.nnp == 1,
	       "uid %u gid %u, %zu groups, nnp %d", s.uid[1], s.gid[1], s.n_groups, s.nnp);
	return child_failures;
}

static int scenario_isolate_capget_refused(void)
{
	struct cs_user u = test_user();
	struct cs_error err = { 0 };
	struct status s;

	deny_syscall(SCMP_SYS(capget), EPERM);
	EXPECT(privileges_isolate(&u, &err) == -1, "isolate must fail");
	EXPECT(err.status == CS_EXIT_OSERR && strstr(err.msg, "cannot read the capabilities (Operation not permitted)"), "message: %s", err.msg);
	EXPECT(read_status(&s) == 0 && s.uid[1] == 0, "ids changed");
	return child_failures;
}

/* privileges_verify() fails closed on a process that did not drop. */
static int scenario_verify_root(void)
{
	struct cs_user u = test_user();
	struct cs_error err = { 0 };

	EXPECT(privileges_verify(&u, true, &err) == -1, "verify must fail as root");
	EXPECT(err.status == CS_EXIT_OSERR, "status %d", err.status);
	EXPECT(strstr(err.msg, "capabilities remain") != NULL, "message: %s", err.msg);
	return child_failures;
}

/* ... and on a half drop: ids changed, capabilities kept (keepcaps). */
static int scenario_verify_half(void)
{
	struct cs_user u = test_user();
	struct cs_error err = { 0 };

	EXPECT(setgroups(u.n_groups, u.groups) == 0, "setgroups");
	EXPECT(prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) == 0, "keepcaps");
	EXPECT(setresgid(u.gid, u.gid, u.gid) == 0 && setresuid(u.uid, u.uid, u.uid) == 0, "set ids");
	EXPECT(privileges_verify(&u, false, &err) == -1, "verify must fail with caps kept");
	EXPECT(strstr(err.msg, "capabilities remain") != NULL, "message: %s", err.msg);
	return child_failures;
}

/* ... and when the groups are not exactly the user's. */
static int scenario_verify_groups(void)
{
	struct cs_user u = test_user(), other = test_user();
	struct drop_result res;
	struct cs_error err = { 0 };

	other.groups[0] = 4243;
	EXPECT(privileges_drop(&u, &res, &err) == 0, "drop: %s", err.msg);
	EXPECT(privileges_verify(&other, true, &err) == -1, "verify must fail on other groups");
	EXPECT(strstr(err.msg, "supplementary groups") != NULL, "message: %s", err.msg);
	other = test_user();
	other.uid = USER_ID + 1;
	EXPECT(privileges_verify(&other, true, &err) == -1, "verify must fail on another uid");
	EXPECT(strstr(err.msg, "uids are") != NULL, "message: %s", err.msg);
	return child_failures;
}

static int run(const char *name, int (*fn)(void))
{
	pid_t pid;
	int st;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(2);
	}
	if (pid == 0)
		_exit(fn() ? 1 : 0);
	if (waitpid(pid, &st, 0) != pid) {
		perror("waitpid");
		exit(2);
	}
	CHECK_NAMED(name, WIFEXITED(st) && WEXITSTATUS(st) == 0, "scenario %s failed (status %#x)", name, st);
	return 0;
}

int main(void)
{
	if (geteuid() != 0 || capng_have_capability(CAPNG_EFFECTIVE, CAP_SETPCAP) == 0) {
		printf("1..0 # SKIP test_drop needs root with CAP_SETPCAP\n");
		return SKIP;
	}
	run("full root: everything dropped, bounding set empty, securebits locked", scenario_full_root);
	run("ambient capabilities are cleared", scenario_ambient);
	run("without CAP_SETPCAP: dropped, bounding set left", scenario_no_setpcap);
	run("without CAP_SETUID: 71, nothing changed", scenario_missing_setuid);
	run("without CAP_SETGID: 71, nothing changed", scenario_missing_setgid);
	run("verify fails closed as root", scenario_verify_root);
	run("verify fails closed on a half drop", scenario_verify_half);
	run("verify fails closed on wrong groups or uid", scenario_verify_groups);
	run("PR_CAPBSET_DROP refused: 71, ids unchanged", scenario_bset_drop_refused);
	run("PR_CAPBSET_DROP ignored: the read-back fails the drop", scenario_bset_drop_ignored);
	run("capabilities hidden behind EINVAL: the drop still tries them, 71", scenario_bset_hidden);
	run("PR_CAPBSET_READ refused: 71", scenario_bset_unreadable);
	run("PR_CAPBSET_READ refused after the probe: the read-back fails the drop", scenario_bset_readback_refused);
	run("PR_CAP_AMBIENT_IS_SET refused: the read-back fails the drop", scenario_ambient_unreadable);
	run("capset ignored: the read-back fails the drop", scenario_capset_ignored);
	run("capget refused: 71, nothing changed", scenario_capget_refused);
	run("bounding set emptied before a fork: both drops skip it, and verify it", scenario_bounding_before_fork);
	run("bounding set before a fork, PR_CAPBSET_DROP refused: 71", scenario_bounding_before_fork_refused);
	run("bounding set before a fork, no CAP_SETPCAP: left as it is", scenario_bounding_before_fork_no_setpcap);
	run("privileges_none: root, or a permitted set alone, is not nothing", scenario_none);
	run("privileges_none: true after the drop", scenario_none_after_drop);
	run("privileges_isolate: the user, no capability, no group, no_new_privs", scenario_isolate);
	run("privileges_isolate: capget refused: 71, nothing changed", scenario_isolate_capget_refused);
	/* Last: caps_last_cap() keeps its answer, and every scenario above must
	 * probe for itself, as the init's processes do. */
	CHECK(caps_last_cap() >= CAP_AUDIT_READ, "caps_last_cap() = %d", caps_last_cap());
	return check_done("test_drop");
}
