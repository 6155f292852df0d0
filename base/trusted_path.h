/* Trusted inputs: files that only root can have written.
 *
 * The profile directory and the files read from it decide what the firewall
 * opens, so each must be owned by root and not writable by group or others,
 * and so must every directory above it, with no symlink on the way that root
 * does not own: what sudo and OpenSSH require of their configuration.  One
 * exception, as for /tmp: a directory above (never the final one) may be
 * writable by others when it is root's and sticky, since then nobody but
 * root can rename or remove what root put in it. */
#ifndef CLI_SANDBOX_TRUSTED_PATH_H
#define CLI_SANDBOX_TRUSTED_PATH_H

#include <sys/types.h>

#include "base/status.h"

enum trusted_kind { TRUSTED_DIR, TRUSTED_FILE };

/* Walks path from "/" component by component, following symlinks (at most
 * 40).  Owners accepted: root, and also_trusted (tests pass their own uid;
 * the init passes 0).  Returns 0 when trusted, 1 when a component does not
 * exist, -1 with err (78) naming the component that is not trusted. */
int trusted_path_check(const char *path, enum trusted_kind kind, uid_t also_trusted,
		       struct cs_error *err);

#endif
