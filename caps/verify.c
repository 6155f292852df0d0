#include "caps/verify.h"

#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Capability numbers fit in two 32-bit words (_LINUX_CAPABILITY_U32S_3). */
#define CAPS_MAX 64

/* 1: capability c exists, 0: it does not (EINVAL), -1: the read failed. */
static int cap_exists(int c)
{
	errno = 0;
	if (prctl(PR_CAPBSET_READ, (unsigned long)c, 0, 0, 0) >= 0)
		return 1;
	return errno == EINVAL ? 0 : -1;
}

int caps_last_cap(void)
{
	/* The kernel's list never changes while it runs: probed once per
	 * process and kept (a forked child inherits it).  A failed probe is
	 * not kept, so every caller sees the failure. */
	static int last = -1;
	int lo = 0, hi = CAPS_MAX, r;

	if (last >= 0)
		return last;
	/* The kernel's capabilities are 0..CAP_LAST_CAP without a gap
	 * (cap_valid()), so the end is found by bisection: 7 reads instead of
	 * one per capability.  Only EINVAL means "no such capability": any
	 * other error (a seccomp or LSM policy refusing prctl) is an error,
	 * never the end of the list.  A policy that answers EINVAL for some
	 * capability in the middle cannot shorten the drop either: it covers
	 * libcap-ng's list too (drop.c), and the read-back reads every bit. */
	r = cap_exists(0);
	if (r <= 0) {
		if (r == 0)
			errno = EINVAL;
		return -1;
	}
	while (hi - lo > 1) {  /* lo exists, hi does not (or is past CAPS_MAX - 1) */
		int mid = lo + (hi - lo) / 2;

		r = cap_exists(mid);
		if (r < 0)
			return -1;
		if (r)
			lo = mid;
		else
			hi = mid;
	}
	last = lo;
	return last;
}

static const char fix_kernel[] =
	"the kernel did not apply the privilege drop, the command is not started; "
	"check for a seccomp or LSM policy that blocks capset/prctl/setresuid";

int caps_read_sets(struct cap_sets *out)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &hdr, d) != 0)
		return -1;
	out->effective = (uint64_t)d[1].effective << 32 | d[0].effective;
	out->permitted = (uint64_t)d[1].permitted << 32 | d[0].permitted;
	out->inheritable = (uint64_t)d[1].inheritable << 32 | d[0].inheritable;
	return 0;
}

static int check_sets(struct cs_error *err)
{
	struct cap_sets c;

	if (caps_read_sets(&c) != 0)
		return cs_fail(err, CS_EXIT_OSERR, "capget failed after the drop (%s); %s", strerror(errno), fix_kernel);
	if (c.effective || c.permitted || c.inheritable)
		return cs_fail(err, CS_EXIT_OSERR,
			       "capabilities remain after the drop (permitted=%#llx effective=%#llx inheritable=%#llx); %s",
			       (unsigned long long)c.permitted, (unsigned long long)c.effective,
			       (unsigned long long)c.inheritable, fix_kernel);
	return 0;
}

static int check_ambient(int last, struct cs_error *err)
{
	for (int c = 0; c <= last; c++) {
		int r = prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, (unsigned long)c, 0, 0);

		if (r < 0 && c == 0 && errno == EINVAL)
			return 0;  /* a kernel without ambient capabilities (before 4.3) */
		if (r < 0)
			return cs_fail(err, CS_EXIT_OSERR, "PR_CAP_AMBIENT_IS_SET(%d) failed after the drop (%s); %s", c, strerror(errno), fix_kernel);
		if (r != 0)
			return cs_fail(err, CS_EXIT_OSERR, "capability %d is still in the ambient set after the drop; %s", c, fix_kernel);
	}
	return 0;
}

static int check_bounding(int last, struct cs_error *err)
{
	for (int c = 0; c <= last; c++) {
		int r = prctl(PR_CAPBSET_READ, (unsigned long)c, 0, 0, 0);

		if (r < 0)
			return cs_fail(err, CS_EXIT_OSERR, "PR_CAPBSET_READ(%d) failed after the drop (%s); %s", c, strerror(errno), fix_kernel);
		if (r != 0)
			return cs_fail(err, CS_EXIT_OSERR, "capability %d is still in the bounding set although CAP_SETPCAP was held; %s", c, fix_kernel);
	}
	return 0;
}

static int check_securebits(struct cs_error *err)
{
	int bits = prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);

	if (bits < 0)
		return cs_fail(err, CS_EXIT_OSERR, "PR_GET_SECUREBITS failed after the drop (%s); %s", strerror(errno), fix_kernel);
	if (((unsigned)bits & CS_SECUREBITS_WANTED) != CS_SECUREBITS_WANTED || ((unsigned)bits & SECBIT_KEEP_CAPS))
		return cs_fail(err, CS_EXIT_OSERR, "the securebits are %#x after the drop, expected %#x locked; %s",
			       (unsigned)bits, CS_SECUREBITS_WANTED, fix_kernel);
	return 0;
}

static int check_ids(const struct cs_user *u, struct cs_error *err)
{
	uid_t ru, eu, su, fu;
	gid_t rg, eg, sg, fg;

	if (getresuid(&ru, &eu, &su) || getresgid(&rg, &eg, &sg))
		return cs_fail(err, CS_EXIT_OSERR, "getresuid/getresgid failed after the drop (%s); %s", strerror(errno), fix_kernel);
	/* setfsuid/setfsgid with an invalid id change nothing and return the current one. */
	fu = (uid_t)setfsuid((uid_t)-1);
	fg = (gid_t)setfsgid((gid_t)-1);
	if (ru != u->uid || eu != u->uid || su != u->uid || fu != u->uid)
		return cs_fail(err, CS_EXIT_OSERR, "uids are real=%u effective=%u saved=%u fs=%u after the drop, expected %u; %s",
			       (unsigned)ru, (unsigned)eu, (unsigned)su, (unsigned)fu, (unsigned)u->uid, fix_kernel);
	if (rg != u->gid || eg != u->gid || sg != u->gid || fg != u->gid)
		return cs_fail(err, CS_EXIT_OSERR, "gids are real=%u effective=%u saved=%u fs=%u after the drop, expected %u; %s",
			       (unsigned)rg, (unsigned)eg, (unsigned)sg, (unsigned)fg, (unsigned)u->gid, fix_kernel);
	return 0;
}

static int check_groups(const struct cs_user *u, struct cs_error *err)
{
	gid_t have[CS_MAX_GROUPS], want[CS_MAX_GROUPS];
	int n = getgroups(CS_MAX_GROUPS, have);

	if (n < 0)
		return cs_fail(err, CS_EXIT_OSERR, "getgroups failed after the drop (%s); %s", strerror(errno), fix_kernel);
	memcpy(want, u->groups, u->n_groups * sizeof(want[0]));
	qsort(have, (size_t)n, sizeof(have[0]), user_gid_cmp);
	qsort(want, u->n_groups, sizeof(want[0]), user_gid_cmp);
	if ((size_t)n != u->n_groups || memcmp(have, want, u->n_groups * sizeof(want[0])) != 0)
		return cs_fail(err, CS_EXIT_OSERR, "the supplementary groups after the drop (%d of them, first %u) are not the user's %zu; %s",
			       n, n ? (unsigned)have[0] : 0U, u->n_groups, fix_kernel);
	return 0;
}

static int check_flags(struct cs_error *err)
{
	int nnp = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
	int keep = prctl(PR_GET_KEEPCAPS, 0, 0, 0, 0);
	int dump = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);

	if (nnp != 1)
		return cs_fail(err, CS_EXIT_OSERR, "no_new_privs is %d after the drop, expected 1; %s", nnp, fix_kernel);
	if (keep != 0)
		return cs_fail(err, CS_EXIT_OSERR, "keepcaps is %d after the drop, expected 0; %s", keep, fix_kernel);
	if (dump != 0)
		return cs_fail(err, CS_EXIT_OSERR, "the init is dumpable (%d) after the drop, expected 0; %s", dump, fix_kernel);
	return 0;
}

/* The proof by attempt: root must be out of reach.  Should either call
 * succeed, the process is root again; the caller fails closed and exits. */
static int check_no_way_back(struct cs_error *err)
{
	if (setgid(0) == 0)
		return cs_fail(err, CS_EXIT_OSERR, "setgid(0) succeeded after the drop; %s", fix_kernel);
	if (setuid(0) == 0)
		return cs_fail(err, CS_EXIT_OSERR, "setuid(0) succeeded after the drop; %s", fix_kernel);
	return 0;
}

int privileges_verify(const struct cs_user *user, bool setpcap_was_held, struct cs_error *err)
{
	int last = caps_last_cap();

	if (last < 0)
		return cs_fail(err, CS_EXIT_OSERR, "PR_CAPBSET_READ cannot list the capabilities (%s); %s", strerror(errno), fix_kernel);
	if (check_sets(err) || check_ambient(last, err) ||
	    (setpcap_was_held && (check_bounding(last, err) || check_securebits(err))) ||
	    check_ids(user, err) || check_groups(user, err) || check_flags(err) ||
	    check_no_way_back(err))
		return -1;
	return 0;
}
