/* The third renderer: the model as libnftnl objects, sent in one netlink
 * batch, then read back from the kernel and compared with the model. */
#ifndef CLI_SANDBOX_APPLY_H
#define CLI_SANDBOX_APPLY_H

#include "entrypoint/status.h"
#include "netfilter/model.h"

/* Replaces any earlier copy of the table with rs in one transaction and
 * verifies the result; on failure err->status is CS_EXIT_OSERR. */
int firewall_apply(const struct nf_ruleset *rs, struct cs_error *err);

#endif
