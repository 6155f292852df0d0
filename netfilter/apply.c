#include "netfilter/apply.h"

/* Until the netlink renderer lands, a real start refuses to run: fail closed. */
int firewall_apply(const struct nf_ruleset *rs, struct cs_error *err)
{
	(void)rs;
	return cs_fail(err, CS_EXIT_OSERR, "the netlink firewall is not implemented in this build; no command is started");
}
