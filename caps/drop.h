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

#endif
