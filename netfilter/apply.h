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
 * CS_EXIT_OSERR and err says what failed, with the kernel's errno.  When
 * the table does not exist yet the batch only creates (it deletes nothing).
 * Only when the kernel refuses a log rule's expressions
 * (firewall_log_unsupported) is rs tried once more without its log rules:
 * they are then removed from rs itself and *without_log is true, so rs is
 * always what the kernel holds (its digest is the one read back). */
int firewall_apply(struct nf_ruleset *rs, bool *without_log, struct cs_error *err);

/* Whether a refusal means "this kernel has no block log expressions": the
 * errno of a refused message, and whether that message is a log rule.
 * Pure, for the tests. */
bool firewall_log_unsupported(int errnum, bool log_rule);

/* The same on an open socket, given what was seen before: whether the table
 * existed, at ruleset generation genid.  If that no longer holds when the
 * batch arrives, the kernel refuses it and this looks once more and sends
 * the matching batch; a second refusal fails.  *attempts is how many
 * batches were sent.  (firewall_apply's second half; tests call it with a
 * stale view to play the race.) */
int firewall_apply_seen(struct mnl_socket *nl, const struct nf_ruleset *rs, bool exists, uint32_t genid,
			int *attempts, struct cs_error *err);

#endif
