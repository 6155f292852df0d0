#include "profiles/policy.h"

#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "profiles/interactive.h"

void policy_init(struct policy *p, enum cs_profile profile)
{
	memset(p, 0, sizeof(*p));
	p->profile = profile;
	p->firewall = true;
}

void policy_free(struct policy *p)
{
	for (size_t i = 0; i < p->n_dests; i++)
		free(p->dests[i].ranges);
	free(p->dests);
	memset(p, 0, sizeof(*p));
}

int policy_add_dest(struct policy *p, uint8_t l4proto, uint16_t port,
		    const struct ipv4_range *ranges, size_t n, const char *origin)
{
	struct policy_dest *d;

	if (grow_array((void **)&p->dests, &p->cap_dests, p->n_dests, sizeof(*p->dests), 8))
		return -1;
	d = &p->dests[p->n_dests];
	memset(d, 0, sizeof(*d));
	d->l4proto = l4proto;
	d->port = port;
	d->ranges = malloc((n ? n : 1) * sizeof(*ranges));
	if (!d->ranges)
		return -1;
	if (n)  /* an empty list may come as NULL, which memcpy must never see */
		memcpy(d->ranges, ranges, n * sizeof(*ranges));
	d->n_ranges = n;
	snprintf(d->origin, sizeof(d->origin), "%s", origin);
	p->n_dests++;
	return 0;
}

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
	if (cfg->profile == CS_PROFILE_MANAGED)
		rc = managed_policy(cfg, out, err);
	else
		rc = interactive_policy(cfg, env, out, err);
	if (rc)
		policy_free(out);
	return rc;
}
