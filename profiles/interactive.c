#include "profiles/interactive.h"

/* Placeholder until the interactive profile lands: it fails closed, so an
 * interactive start never runs with a firewall narrower or wider than meant. */
int interactive_policy(const struct cs_config *cfg, const struct policy_env *env,
		       struct policy *p, struct cs_error *err)
{
	(void)env;
	if (cfg->skip_firewall) {
		p->firewall = false;
		return 0;
	}
	return cs_fail(err, CS_EXIT_CONFIG, "the interactive profile is not available in this build; use the managed profile");
}
