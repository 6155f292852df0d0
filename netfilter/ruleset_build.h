/* policy -> ruleset model: the one place that decides rule order. */
#ifndef CLI_SANDBOX_RULESET_BUILD_H
#define CLI_SANDBOX_RULESET_BUILD_H

#include "base/status.h"
#include "netfilter/model.h"
#include "profiles/policy.h"

#define CS_TABLE_NAME "cli_sandbox"

/* CLI_SANDBOX_DNS=pinned: the dynamic set the pinning resolver fills
 * (cli-sandbox-resolver's defaults are the same), its fixed timeout (so a
 * refresh never shortens an element) and its size cap; and the interval
 * set of the guard that refuses the forbidden blocks before it. */
#define CS_PINNED_SET "pinned"
#define CS_PINNED_TIMEOUT_S 900
#define CS_PINNED_SIZE 65536
#define CS_PINNED_GUARD_SET "pinned_guard"

/* Fails only when memory runs out or the policy is inconsistent. */
int ruleset_build(const struct policy *p, struct nf_ruleset *rs, struct cs_error *err);

#endif
