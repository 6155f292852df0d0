/* policy -> ruleset model: the one place that decides rule order. */
#ifndef CLI_SANDBOX_RULESET_BUILD_H
#define CLI_SANDBOX_RULESET_BUILD_H

#include "base/status.h"
#include "netfilter/model.h"
#include "profiles/policy.h"

#define CS_TABLE_NAME "cli_sandbox"

/* Fails only when memory runs out or the policy is inconsistent. */
int ruleset_build(const struct policy *p, struct nf_ruleset *rs, struct cs_error *err);

#endif
