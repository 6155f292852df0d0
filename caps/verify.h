/* The privilege state read back from the kernel after the drop.
 *
 * Nothing here trusts libcap-ng's bookkeeping: every fact comes from a
 * system call (capget, prctl, getresuid, getresgid, getgroups), so a library
 * that reports success while the kernel refused a change is caught. */
#ifndef CLI_SANDBOX_VERIFY_H
#define CLI_SANDBOX_VERIFY_H

#include <linux/securebits.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/status.h"
#include "caps/user_db.h"

/* The securebits set and locked when CAP_SETPCAP is held: uid 0 gains no
 * capabilities on exec, setuid-root files included (NOROOT); a uid change
 * never adjusts capabilities implicitly (NO_SETUID_FIXUP: becoming euid 0
 * raises nothing; the drop clears the sets explicitly); KEEP_CAPS stays off;
 * nothing can be raised into the ambient set; every one of them locked. */
#define CS_SECUREBITS_WANTED                                       \
	(SECBIT_NOROOT | SECBIT_NOROOT_LOCKED |                     \
	 SECBIT_NO_SETUID_FIXUP | SECBIT_NO_SETUID_FIXUP_LOCKED |   \
	 SECBIT_KEEP_CAPS_LOCKED |                                  \
	 SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED)

/* The highest capability number the running kernel knows, probed with
 * PR_CAPBSET_READ (which fails with EINVAL past the last one); -1 with errno
 * when any read fails otherwise, or capability 0 cannot be read.  Probed on
 * the first successful call of a process only (forked children inherit the
 * answer); later calls make no system call. */
/* The process's own effective, permitted and inheritable sets, from one
 * capget (version 3: all 64 bits).  0, or -1 with errno. */
struct cap_sets {
	uint64_t effective, permitted, inheritable;
};
int caps_read_sets(struct cap_sets *out);

int caps_last_cap(void);

/* Checks, from the kernel's own view, that the calling thread:
 *   - has empty permitted, effective, inheritable and ambient sets;
 *   - has an empty bounding set and the securebits above locked, when
 *     setpcap_was_held;
 *   - has real, effective, saved and filesystem uid and gid equal to the
 *     user's, and exactly the user's supplementary groups;
 *   - has no_new_privs set, keepcaps off, and is not dumpable;
 *   - cannot setuid(0) or setgid(0).
 * Returns 0, or -1 with err->status CS_EXIT_OSERR naming the first mismatch. */
int privileges_verify(const struct cs_user *user, bool setpcap_was_held, struct cs_error *err);

#endif
