/* Programming the firewall: the model rendered as one netlink batch, sent,
 * then read back from the kernel and compared with the model. */
#ifndef CLI_SANDBOX_APPLY_H
#define CLI_SANDBOX_APPLY_H

#include "base/status.h"
#include "netfilter/model.h"

/* Replaces any earlier copy of the table with rs in one transaction and
 * verifies the result; on failure err->status is CS_EXIT_OSERR. */
int firewall_apply(const struct nf_ruleset *rs, struct cs_error *err);

#endif
