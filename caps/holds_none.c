#include "caps/holds_none.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "caps/verify.h"

static const char fix_pod[] =
	"the agent container must start with no privilege: set its securityContext to runAsNonRoot: true, "
	"runAsUser/runAsGroup of CLI_SANDBOX_USER, capabilities: {drop: [ALL]}, allowPrivilegeEscalation: false "
	"(deploy/kubernetes/job.yaml)";

static int check_ids(const struct cs_user *u, struct cs_error *err)
{
	uid_t ru, eu, su, fu;
	gid_t rg, eg, sg, fg;

	if (getresuid(&ru, &eu, &su) || getresgid(&rg, &eg, &sg))
		return cs_fail(err, CS_EXIT_OSERR, "getresuid/getresgid failed (%s)", strerror(errno));
	fu = (uid_t)setfsuid((uid_t)-1);  /* an invalid id changes nothing and returns the current one */
	fg = (gid_t)setfsgid((gid_t)-1);
	if (ru == 0 || eu == 0 || su == 0 || fu == 0)
		return cs_fail(err, CS_EXIT_CONFIG, "--verify-only runs as root (uid real=%u effective=%u saved=%u); %s",
			       (unsigned)ru, (unsigned)eu, (unsigned)su, fix_pod);
	if (rg == 0 || eg == 0 || sg == 0 || fg == 0)
		return cs_fail(err, CS_EXIT_CONFIG, "--verify-only runs with gid 0 (real=%u effective=%u saved=%u); %s",
			       (unsigned)rg, (unsigned)eg, (unsigned)sg, fix_pod);
	if (ru != u->uid || eu != u->uid || su != u->uid || fu != u->uid ||
	    rg != u->gid || eg != u->gid || sg != u->gid || fg != u->gid)
		return cs_fail(err, CS_EXIT_CONFIG,
			       "--verify-only runs as uid %u gid %u, but CLI_SANDBOX_USER is %s (%u:%u); "
			       "set the container's runAsUser/runAsGroup to %u/%u, or CLI_SANDBOX_USER to the identity it runs as",
			       (unsigned)ru, (unsigned)rg, u->name[0] ? u->name : "given as uid:gid",
			       (unsigned)u->uid, (unsigned)u->gid, (unsigned)u->uid, (unsigned)u->gid);
	return 0;
}

static bool user_has_group(const struct cs_user *u, gid_t g)
{
	for (size_t i = 0; i < u->n_groups; i++)
		if (u->groups[i] == g)
			return true;
	return false;
}

/* user_resolve() left out gid 0 and root's groups from the inherited ones:
 * any of them still held here is a group the command must not have. */
static int check_groups(const struct cs_user *u, struct cs_error *err)
{
	gid_t have[CS_MAX_GROUPS];
	int n = getgroups(CS_MAX_GROUPS, have);

	if (n < 0)
		return cs_fail(err, CS_EXIT_CONFIG, "the container has more than %d supplementary groups; give it fewer", CS_MAX_GROUPS);
	for (int i = 0; i < n; i++)
		if (!user_has_group(u, have[i]))
			return cs_fail(err, CS_EXIT_CONFIG,
				       "--verify-only holds supplementary group %u, which is gid 0 or a group of root's; "
				       "remove it from the pod's supplementalGroups/fsGroup, or from root's groups in the image",
				       (unsigned)have[i]);
	return 0;
}

static int check_caps(struct cs_error *err)
{
	struct cap_sets sets;
	int last = caps_last_cap();

	if (caps_read_sets(&sets) != 0 || last < 0)
		return cs_fail(err, CS_EXIT_OSERR, "cannot read the capability sets (%s)", strerror(errno));
	if (sets.effective || sets.permitted || sets.inheritable)
		return cs_fail(err, CS_EXIT_CONFIG,
			       "--verify-only holds capabilities (permitted=%#llx effective=%#llx inheritable=%#llx); %s",
			       (unsigned long long)sets.permitted, (unsigned long long)sets.effective,
			       (unsigned long long)sets.inheritable, fix_pod);
	for (int c = 0; c <= last; c++) {
		int amb = prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, (unsigned long)c, 0, 0);
		int bnd = prctl(PR_CAPBSET_READ, (unsigned long)c, 0, 0, 0);

		if (amb > 0)
			return cs_fail(err, CS_EXIT_CONFIG, "--verify-only holds capability %d in the ambient set; %s", c, fix_pod);
		/* A bounding set that still lists a capability is one a setuid
		 * or file-capability binary could raise: capabilities: drop: [ALL]
		 * empties it. */
		if (bnd != 0)
			return cs_fail(err, CS_EXIT_CONFIG, "--verify-only has capability %d in its bounding set%s; %s", c,
				       bnd < 0 ? " (unreadable)" : "", fix_pod);
	}
	return 0;
}

static int seal(struct cs_error *err)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
		return cs_fail(err, CS_EXIT_OSERR, "prctl(PR_SET_NO_NEW_PRIVS/PR_SET_DUMPABLE) failed (%s); "
			       "check for a seccomp or LSM policy that blocks prctl", strerror(errno));
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1 || prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) != 0)
		return cs_fail(err, CS_EXIT_OSERR, "no_new_privs or the dumpable flag did not take; "
			       "check for a seccomp or LSM policy that blocks prctl");
	return 0;
}

int privileges_verify_none(const struct cs_user *user, struct cs_error *err)
{
	if (check_ids(user, err) || check_groups(user, err) || check_caps(err) || seal(err))
		return -1;
	return 0;
}
