#include "netfilter/apply.h"

#include <time.h>

#include "netfilter/nl_transport.h"
#include "netfilter/readback.h"
#include "netfilter/render_netlink.h"

int firewall_apply(const struct nf_ruleset *rs, struct cs_error *err)
{
	struct mnl_socket *nl = nl_open(err);
	struct nl_batch *b;
	int rc = -1;

	if (!nl)
		return -1;
	b = render_netlink(rs, (uint32_t)time(NULL), err);
	if (b && nl_send(nl, b, err) == 0 && readback_verify(nl, rs, err) == 0)
		rc = 0;
	nl_batch_free(b);
	mnl_socket_close(nl);
	return rc;
}
