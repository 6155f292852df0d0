#include "profiles/policy.h"

#include <netinet/in.h>

#include "profiles/interactive.h"

/* Managed: TCP to the gateway's exact address and port, nothing else. */
static int managed_policy(const struct cs_config *cfg, struct policy *p, struct cs_error *err)
{
	struct ipv4_range gw = { cfg->url.addr, cfg->url.addr };

	if (!cfg->has_url || !cfg->url.host_is_ipv4)
		return cs_fail(err, CS_EXIT_CONFIG, "the managed profile needs TASK_AGENT_MODEL_BASE_URL with an IPv4 address");
	if (policy_add_dest(p, IPPROTO_TCP, cfg->url.port, &gw, 1, "model gateway (TASK_AGENT_MODEL_BASE_URL)"))
		return cs_fail(err, CS_EXIT_OSERR, "out of memory building the policy");
	return 0;
}

int policy_build(const struct cs_config *cfg, const struct policy_env *env,
		 struct policy *out, struct cs_error *err)
{
	int rc;

	policy_init(out, cfg->profile);
	out->dns_pinned = cfg->dns_pinned;
	out->resolver_uid = cfg->resolver_uid;
	if (cfg->profile == CS_PROFILE_MANAGED)
		rc = managed_policy(cfg, out, err);
	else
		rc = interactive_policy(cfg, env, out, err);
	if (rc)
		policy_free(out);
	return rc;
}
