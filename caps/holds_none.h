/* The agent container's side of the Kubernetes split (--verify-only): a
 * process that was started with nothing, and must prove it.
 *
 * That container is meant to run as the "restricted" Pod Security Standard
 * has it: non-root from the start, every capability dropped, no privilege
 * escalation.  The init drops nothing there, because it holds nothing; it
 * refuses to run when the pod spec gave it something after all (uid or gid
 * 0, a capability in any set, a group root belongs to), since the firewall
 * the command lives behind would then be within its reach.  It checks the
 * kernel's own view (getresuid, getresgid, getgroups, capget, prctl), never
 * /proc, which a runtime may fake. */
#ifndef CLI_SANDBOX_HOLDS_NONE_H
#define CLI_SANDBOX_HOLDS_NONE_H

#include "caps/user_db.h"
#include "base/status.h"

/* Checks that the calling process:
 *   - runs as user's uid and gid (real, effective, saved, filesystem), and
 *     neither is 0;
 *   - has only supplementary groups among user's (none that root belongs
 *     to, never gid 0);
 *   - has empty permitted, effective, inheritable, ambient and bounding
 *     capability sets;
 * then sets no_new_privs (no privilege is needed for that) and makes itself
 * not dumpable, so the command can neither gain a privilege by exec nor
 * trace or read its supervisor, and checks both.  Returns 0, or -1 with
 * err->status CS_EXIT_CONFIG and a line naming the pod spec field to fix
 * (CS_EXIT_OSERR when the kernel refuses a call). */
int privileges_verify_none(const struct cs_user *user, struct cs_error *err);

#endif
