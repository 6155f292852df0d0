#include "caps/drop.h"

/* Until the privilege drop lands, a real start refuses to run: fail closed. */
int privileges_drop(const struct cs_user *user, struct drop_result *res, struct cs_error *err)
{
	(void)user;
	res->bounding_cleared = false;
	return cs_fail(err, CS_EXIT_OSERR, "the privilege drop is not implemented in this build; no command is started");
}
