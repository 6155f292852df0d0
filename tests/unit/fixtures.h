/* Policies shared by the renderer and builder tests. */
#ifndef CLI_SANDBOX_TEST_FIXTURES_H
#define CLI_SANDBOX_TEST_FIXTURES_H

#include <netinet/in.h>

#include "profiles/policy.h"

#define IP4(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (uint32_t)(d))

/* The managed profile for http://192.0.2.10:8080. */
static inline int fixture_managed(struct policy *p)
{
	struct ipv4_range gw = { IP4(192, 0, 2, 10), IP4(192, 0, 2, 10) };

	policy_init(p, CS_PROFILE_MANAGED);
	return policy_add_dest(p, IPPROTO_TCP, 8080, &gw, 1, "model gateway (TASK_AGENT_MODEL_BASE_URL)");
}

/* An interactive-shaped policy: resolvers, host network, sets with ranges
 * that overlap, touch, and reach the top of the address space. */
static inline int fixture_interactive(struct policy *p)
{
	struct ipv4_range web[] = {
		{ IP4(198, 51, 100, 0), IP4(198, 51, 100, 127) },
		{ IP4(198, 51, 100, 128), IP4(198, 51, 100, 255) },  /* adjacent: merges */
		{ IP4(192, 0, 2, 7), IP4(192, 0, 2, 7) },
		{ IP4(192, 0, 2, 5), IP4(192, 0, 2, 9) },            /* overlaps: merges */
	};
	struct ipv4_range api[] = { { IP4(192, 0, 2, 64), IP4(192, 0, 2, 95) } };
	struct ipv4_range git[] = {
		{ IP4(192, 0, 2, 128), IP4(192, 0, 2, 131) },
		{ IP4(255, 255, 255, 0), IP4(255, 255, 255, 255) },  /* no end element */
	};

	policy_init(p, CS_PROFILE_INTERACTIVE);
	p->resolvers[p->n_resolvers++] = IP4(127, 0, 0, 11);
	p->resolvers[p->n_resolvers++] = IP4(192, 0, 2, 1);
	p->has_host_net = true;
	p->host_net_addr = IP4(198, 51, 100, 0);
	p->host_net_len = 24;
	return policy_add_dest(p, IPPROTO_TCP, 443, web, 4, "profile claude: api.test") ||
	       policy_add_dest(p, IPPROTO_TCP, 443, api, 1, "github-meta.json api") ||
	       policy_add_dest(p, IPPROTO_TCP, 22, git, 2, "github-meta.json git") ||
	       policy_add_dest(p, IPPROTO_TCP, 8443, api, 1, "TASK_AGENT_MODEL_BASE_URL");
}

#endif
