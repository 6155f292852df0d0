/* Shedding every privilege, irreversibly, and proving it from the kernel. */
#ifndef CLI_SANDBOX_DROP_H
#define CLI_SANDBOX_DROP_H

#include <stdbool.h>

#include "base/status.h"
#include "caps/user_db.h"

struct drop_result {
	bool bounding_cleared;  /* CAP_SETPCAP was held: bounding set empty, securebits locked */
};

/* Sets the user's groups, gid and uid; empties every capability set; sets
 * no_new_privs; then verifies all of it.  err->status is CS_EXIT_OSERR. */
int privileges_drop(const struct cs_user *user, struct drop_result *res, struct cs_error *err);

/* Empties the bounding set now, for every process forked from here on, when
 * CAP_SETPCAP is effective (otherwise it does nothing).  PID 1 calls it just
 * before it forks the command's process: each process then drops its own
 * privileges, and privileges_drop() skips the 41 PR_CAPBSET_DROP calls
 * (about 1.5 us each: every one commits new credentials) that this one made
 * for both.  The bounding set limits only what an exec can gain, so both
 * processes keep CAP_SETUID, CAP_SETGID and CAP_SETPCAP for their own drop;
 * privileges_drop() still verifies the empty set from the kernel.
 * err->status is CS_EXIT_OSERR. */
int privileges_empty_bounding_set(struct cs_error *err);

/* For a short-lived helper process (the resolver child): switches to the
 * user's uid and gid with no supplementary group (when the process is
 * privileged at all), empties every capability set, sets no_new_privs, and
 * checks from the kernel that no capability and no uid 0 is left.
 * err->status is CS_EXIT_OSERR. */
int privileges_isolate(const struct cs_user *user, struct cs_error *err);

/* True when the process holds nothing to drop: not root, no capability in
 * its permitted or effective set (a start that is unprivileged from the
 * outset, such as Kubernetes' verify-only agent container). */
bool privileges_none(void);

#endif
