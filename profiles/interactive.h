/* The interactive profile: provider allowlists as data, resolved at start. */
#ifndef CLI_SANDBOX_INTERACTIVE_H
#define CLI_SANDBOX_INTERACTIVE_H

#include "profiles/policy_model.h"

int interactive_policy(const struct cs_config *cfg, const struct policy_env *env,
		       struct policy *p, struct cs_error *err);

#endif
