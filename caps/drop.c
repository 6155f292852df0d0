#include "caps/drop.h"

#include <cap-ng.h>
#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "caps/verify.h"

/* The order matters:
 *
 *  1. Read the starting capabilities (one capget).  CAP_SETUID and
 *     CAP_SETGID are required; without them nothing can be changed and we
 *     stop (71).
 *  2. With CAP_SETPCAP: empty the bounding set (PR_CAPBSET_DROP, see
 *     clear_bounding_set; skipped when privileges_empty_bounding_set() did
 *     it before the fork), then set and lock the securebits.  Both need
 *     CAP_SETPCAP in the effective set, so they come before anything that
 *     sheds it.  Without CAP_SETPCAP the bounding set
 *     stays as the container started; no_new_privs (step 6) makes it
 *     unusable: no exec can ever raise a capability again.
 *  3. setgroups() while CAP_SETGID is still held.  The list comes from
 *     user_resolve() (our own /etc/group parser), never from
 *     CAPNG_INIT_SUPP_GRP, which calls initgroups() and so NSS, unavailable
 *     in the static binary.
 *  4. setresgid() then setresuid(): the gid first, while CAP_SETGID is
 *     still effective.  We call them directly instead of capng_change_id():
 *     it toggles PR_SET_KEEPCAPS, which the locked securebits forbid, and a
 *     failure inside it can leave keepcaps set.
 *  5. Empty the permitted, effective and inheritable sets and the ambient
 *     set with libcap-ng (capset, PR_CAP_AMBIENT_CLEAR_ALL).  With
 *     SECBIT_NO_SETUID_FIXUP the uid change in step 4 cleared nothing by
 *     itself: this step does.
 *  6. no_new_privs, and the dumpable decision below.
 *  7. Verify everything from the kernel (caps/verify.c), once, every set
 *     bit by bit; any mismatch fails closed.  Nothing here reads
 *     /proc/PID/status: each parse costs more than the rest of the drop.
 *
 * PR_SET_DUMPABLE: we set it to 0, explicitly, rather than restore it to 1
 * as bubblewrap does.  The kernel already clears it on the uid change when
 * fs.suid_dumpable is 0, but that sysctl is the host's to choose, so we do
 * not depend on it.  A non-dumpable init keeps /proc/1/{environ,mem,maps,fd}
 * owned by root and unreadable, and refuses ptrace, to the command it runs as
 * the same uid: the agent cannot inspect or steer its own supervisor, and the
 * init writes a core dump nowhere.  The init needs nothing from /proc/self
 * after the drop (bubblewrap's reason to restore it is writing its own
 * uid_map).  The command itself is unaffected: execve() makes a process
 * dumpable again when its real and effective ids agree and the binary is
 * readable, so the command's /proc/self belongs to the user as usual. */

/* The process's own capability sets, from one capget.  (libcap-ng's
 * capng_get_caps_process() would parse /proc/PID/status twice more, for the
 * bounding and ambient sets, which no decision here needs.) */
struct start_caps {
	uint64_t effective, permitted;
};

static int read_caps(struct start_caps *caps)
{
	struct cap_sets c;

	if (caps_read_sets(&c) != 0)
		return -1;
	caps->effective = c.effective;
	caps->permitted = c.permitted;
	return 0;
}

static bool holds(uint64_t set, unsigned int cap)
{
	return (set >> cap) & 1;
}

/* The highest capability libcap-ng knows of: it read
 * /proc/sys/kernel/cap_last_cap (or probed) when the program started, and
 * names no capability past it. */
static int libcap_ng_last_cap(void)
{
	int c = 0;

	while (c < 64 && capng_capability_to_name((unsigned int)c) != NULL)
		c++;
	return c - 1;
}

/* PR_CAPBSET_DROP for every capability, as capng_apply(CAPNG_SELECT_BOUNDS)
 * does, but without what that call adds around its loop: it first re-reads
 * the whole process state (capget, and /proc/PID/status twice) only to test
 * CAP_SETPCAP, which privileges_drop() has tested, and afterwards parses
 * /proc/PID/status once more to refresh its own bookkeeping, which nothing
 * reads (privileges_verify() asks the kernel).  Those three parses were most
 * of the drop's time (~15-40 us each, against 0.2 us for a prctl).
 *
 * The loop covers every capability the kernel lists (caps_last_cap) and every
 * one libcap-ng knows of, as libcap-ng's own loop did: a policy answering
 * EINVAL early, to hide capabilities from the probe, makes a drop fail here
 * instead of leaving them in the set unchecked.  A refused drop fails at
 * once; a drop the kernel acknowledged but did not make is caught by
 * privileges_verify(), which reads every bit back. */
static int clear_bounding_set(struct cs_error *err)
{
	int last = caps_last_cap(), known = libcap_ng_last_cap();

	if (last < 0)
		return cs_fail(err, CS_EXIT_OSERR, "PR_CAPBSET_READ cannot list the capabilities (%s); the command is not started, check for a seccomp or LSM policy that blocks prctl",
			       strerror(errno));
	if (known > last)
		last = known;
	for (int c = 0; c <= last; c++)
		if (prctl(PR_CAPBSET_DROP, (unsigned long)c, 0, 0, 0) != 0)
			return cs_fail(err, CS_EXIT_OSERR, "emptying the capability bounding set failed (PR_CAPBSET_DROP(%d): %s); the command is not started, check for a seccomp or LSM policy that blocks prctl(PR_CAPBSET_DROP)",
				       c, strerror(errno));
	return 0;
}

/* Set once this process, or the one it was forked from, has emptied its
 * bounding set (privileges_empty_bounding_set): a bounding set never
 * grows again, and a forked child inherits it with this flag. */
static bool bounding_emptied;

int privileges_empty_bounding_set(struct cs_error *err)
{
	struct start_caps caps;

	if (read_caps(&caps) != 0)
		return cs_fail(err, CS_EXIT_OSERR, "cannot read the process's capabilities (%s); the command is not started", strerror(errno));
	if (!holds(caps.effective, CAP_SETPCAP) || bounding_emptied)
		return 0;
	if (clear_bounding_set(err))
		return -1;
	bounding_emptied = true;
	return 0;
}

static int lock_securebits(struct cs_error *err)
{
	int old = prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);
	unsigned int bits;

	if (old < 0)
		return cs_fail(err, CS_EXIT_OSERR, "PR_GET_SECUREBITS failed (%s); the command is not started", strerror(errno));
	/* Keep whatever an outer sandbox already set (a locked bit cannot be
	 * cleared anyway), add ours, and turn KEEP_CAPS off before locking it. */
	bits = ((unsigned int)old | CS_SECUREBITS_WANTED) & ~SECBIT_KEEP_CAPS;
	if (prctl(PR_SET_SECUREBITS, (unsigned long)bits, 0, 0, 0) != 0)
		return cs_fail(err, CS_EXIT_OSERR, "locking the securebits (%#x -> %#x) failed (%s); the command is not started, the container may have locked them already with keepcaps on",
			       (unsigned int)old, bits, strerror(errno));
	return 0;
}

static int set_identity(const struct cs_user *u, struct cs_error *err)
{
	if (setgroups(u->n_groups, u->groups) != 0)
		return cs_fail(err, CS_EXIT_OSERR, "setgroups (%zu groups) failed (%s); %s", u->n_groups, strerror(errno),
			       errno == EPERM ? "setgroups is denied in this user namespace or CAP_SETGID is missing; start the container with --cap-add=SETGID"
					      : "the command is not started");
	if (setresgid(u->gid, u->gid, u->gid) != 0)
		return cs_fail(err, CS_EXIT_OSERR, "setresgid(%u) failed (%s); %s", (unsigned)u->gid, strerror(errno),
			       errno == EINVAL ? "the gid is not mapped in this user namespace, choose a CLI_SANDBOX_USER inside the container's id mapping"
					       : "start the container with --cap-add=SETGID");
	if (setresuid(u->uid, u->uid, u->uid) != 0)
		return cs_fail(err, CS_EXIT_OSERR, "setresuid(%u) failed (%s); %s", (unsigned)u->uid, strerror(errno),
			       errno == EINVAL ? "the uid is not mapped in this user namespace, choose a CLI_SANDBOX_USER inside the container's id mapping"
			       : errno == EAGAIN ? "the user is over its RLIMIT_NPROC, raise the limit or stop its other processes"
					       : "start the container with --cap-add=SETUID");
	return 0;
}

static int clear_capability_sets(struct cs_error *err)
{
	int rc;

	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
		return cs_fail(err, CS_EXIT_OSERR, "clearing the ambient capabilities failed (%s); the command is not started", strerror(errno));
	capng_clear(CAPNG_SELECT_ALL);
	rc = capng_apply(CAPNG_SELECT_CAPS | CAPNG_SELECT_AMBIENT);
	if (rc != 0)
		return cs_fail(err, CS_EXIT_OSERR, "emptying the capability sets failed (libcap-ng %d: %s); the command is not started", rc, strerror(errno));
	return 0;
}

int privileges_drop(const struct cs_user *user, struct drop_result *res, struct cs_error *err)
{
	struct start_caps caps;
	bool setuid_cap, setgid_cap, setpcap;

	res->bounding_cleared = false;
	if (read_caps(&caps) != 0)
		return cs_fail(err, CS_EXIT_OSERR, "cannot read the process's capabilities (%s); the command is not started", strerror(errno));
	setuid_cap = holds(caps.effective, CAP_SETUID);
	setgid_cap = holds(caps.effective, CAP_SETGID);
	if (!setuid_cap || !setgid_cap)
		return cs_fail(err, CS_EXIT_OSERR, "%s missing: the init cannot switch to uid %u; start the container with --cap-add=SETUID --cap-add=SETGID",
			       !setuid_cap && !setgid_cap ? "CAP_SETUID and CAP_SETGID"
			       : !setuid_cap              ? "CAP_SETUID" : "CAP_SETGID",
			       (unsigned)user->uid);
	if (user->uid == 0 || user->gid == 0)
		return cs_fail(err, CS_EXIT_OSERR, "refusing to drop to uid %u gid %u (root); name an unprivileged CLI_SANDBOX_USER",
			       (unsigned)user->uid, (unsigned)user->gid);
	setpcap = holds(caps.effective, CAP_SETPCAP);
	if (setpcap && ((!bounding_emptied && clear_bounding_set(err)) || lock_securebits(err)))
		return -1;
	if (set_identity(user, err) || clear_capability_sets(err))
		return -1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return cs_fail(err, CS_EXIT_OSERR, "setting no_new_privs failed (%s); the command is not started", strerror(errno));
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
		return cs_fail(err, CS_EXIT_OSERR, "clearing the dumpable flag failed (%s); the command is not started", strerror(errno));
	if (privileges_verify(user, setpcap, err))
		return -1;
	res->bounding_cleared = setpcap;
	return 0;
}

/* The resolver child's drop (see drop.h).  Simpler than the command's: no
 * groups at all, no bounding set or securebits (the process lives for a
 * few seconds and execs nothing), but the same proof from the kernel that
 * no privilege is left before glibc parses a single answer. */
int privileges_isolate(const struct cs_user *user, struct cs_error *err)
{
	struct cap_sets left;
	struct start_caps caps;
	uid_t ru, eu, su;
	bool privileged;

	if (read_caps(&caps) != 0)
		return cs_fail(err, CS_EXIT_OSERR, "cannot read the capabilities (%s)", strerror(errno));
	privileged = geteuid() == 0 || caps.effective != 0;
	if (privileged) {
		if (user->uid == 0 || user->gid == 0)
			return cs_fail(err, CS_EXIT_OSERR, "refusing to resolve as uid %u gid %u (root)", (unsigned)user->uid, (unsigned)user->gid);
		if (setgroups(0, NULL) != 0 || setresgid(user->gid, user->gid, user->gid) != 0 ||
		    setresuid(user->uid, user->uid, user->uid) != 0)
			return cs_fail(err, CS_EXIT_OSERR, "cannot switch to uid %u gid %u: %s; start the container with --cap-add=SETUID --cap-add=SETGID",
				       (unsigned)user->uid, (unsigned)user->gid, strerror(errno));
	}
	if (clear_capability_sets(err))
		return -1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return cs_fail(err, CS_EXIT_OSERR, "setting no_new_privs failed (%s)", strerror(errno));
	if (caps_read_sets(&left) != 0 || left.effective || left.permitted || left.inheritable)
		return cs_fail(err, CS_EXIT_OSERR, "capabilities remain after the drop");
	if (getresuid(&ru, &eu, &su) != 0 || ru == 0 || eu == 0 || su == 0 ||
	    prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
		return cs_fail(err, CS_EXIT_OSERR, "the process still has uid 0 or lacks no_new_privs after the drop");
	return 0;
}

bool privileges_none(void)
{
	struct start_caps caps;

	if (geteuid() == 0 || getuid() == 0 || read_caps(&caps) != 0)
		return false;
	return caps.effective == 0 && caps.permitted == 0;
}
