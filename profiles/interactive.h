/* The interactive profile: provider allowlists as data, resolved at start. */
#ifndef CLI_SANDBOX_INTERACTIVE_H
#define CLI_SANDBOX_INTERACTIVE_H

#include "profiles/policy_model.h"

int interactive_policy(const struct cs_config *cfg, const struct policy_env *env,
		       struct policy *p, struct cs_error *err);

/* Called once per name and port the profile allows (a name may come more
 * than once); non-zero stops the walk with that value. */
typedef int (*interactive_name_fn)(void *ctx, const char *name, uint16_t port, bool internal,
				   const char *origin);

/* The exact names the interactive profile allows for env->command, the
 * ones interactive_policy() resolves at start, without resolving them: the
 * model endpoint's host (TASK_AGENT_MODEL_BASE_URL), the profile's names for
 * that CLI and common (every CLI's for another command), CLI_SANDBOX_ALLOW's
 * names.  The pinning resolver's list (CLI_SANDBOX_DNS=pinned).  internal:
 * the name may resolve to a private address, as the endpoint and the
 * person's own additions may (a gateway on the LAN); a provider's public
 * name may not.  Reads the profile directory under the same trust rules.
 * 0, -1 with err (78), or fn's non-zero value. */
int interactive_names(const struct cs_config *cfg, const struct policy_env *env,
		      interactive_name_fn fn, void *ctx, struct cs_error *err);

#endif
