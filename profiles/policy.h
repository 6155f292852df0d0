/* Policy: what the sandbox may reach, and why, before any nftables detail.
 *
 * config -> policy is the stage where a profile and its destinations meet;
 * policy -> ruleset (netfilter/ruleset_build.h) turns it into the model.
 * Every allowed destination carries its origin, so the dry-run can tell an
 * operator where each hole in the firewall comes from. */
#ifndef CLI_SANDBOX_POLICY_H
#define CLI_SANDBOX_POLICY_H

#include "base/config.h"
#include "base/status.h"
#include "profiles/policy_model.h"

/* Builds the policy for cfg: the managed profile needs nothing from env. */
int policy_build(const struct cs_config *cfg, const struct policy_env *env,
		 struct policy *out, struct cs_error *err);

#endif
