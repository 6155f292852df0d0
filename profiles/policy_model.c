#include "profiles/policy_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"

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
