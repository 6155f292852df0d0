/* Programming the firewall: the model rendered as one netlink batch, sent,
 * then read back from the kernel and compared with what was sent. */
#ifndef CLI_SANDBOX_APPLY_H
#define CLI_SANDBOX_APPLY_H

#include <libmnl/libmnl.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/status.h"
#include "netfilter/model.h"

/* Replaces any earlier copy of the table with rs in one transaction,
 * verifies the result, then flushes the namespace's conntrack table so that
 * no earlier flow survives as "established"; on failure err->status is
 * CS_EXIT_OSERR.  When the table does not exist yet the batch only creates
 * (it deletes nothing). */
int firewall_apply(const struct nf_ruleset *rs, struct cs_error *err);

/* The same on an open socket, given what was seen before: whether the table
 * existed, at ruleset generation genid.  If that no longer holds when the
 * batch arrives, the kernel refuses it and this looks once more and sends
 * the matching batch; a second refusal fails.  *attempts is how many
 * batches were sent.  (firewall_apply's second half; tests call it with a
 * stale view to play the race.) */
int firewall_apply_seen(struct mnl_socket *nl, const struct nf_ruleset *rs, bool exists, uint32_t genid,
			int *attempts, struct cs_error *err);

#endif
