/* The netlink transport: it opens the netfilter socket, sends a finished
 * batch (every page in one sendmsg, so the kernel sees one transaction) and
 * matches the kernel's acknowledgements to the batch's messages.  It knows
 * nothing of the ruleset model. */
#ifndef CLI_SANDBOX_NL_TRANSPORT_H
#define CLI_SANDBOX_NL_TRANSPORT_H

#include <libmnl/libmnl.h>

#include "base/status.h"
#include "netfilter/nl_batch.h"

/* Opens the netfilter netlink socket (EX_OSERR with a clear reason). */
struct mnl_socket *nl_open(struct cs_error *err);

/* The first message the kernel refused: its errno (0 when the failure was
 * not a refusal: the send itself, the acknowledgements' read, a missing
 * acknowledgement) and its sequence number. */
struct nl_refusal {
	int errnum;
	uint32_t seq;
};

/* Sends the batch and reads every acknowledgement; 0 when the kernel
 * accepted every message (so committed the transaction).  On -1, *refused
 * says which message the kernel refused and why, so the caller can tell a
 * lost race (EEXIST, ERESTART) or a kernel without the block log's
 * expressions from a real error. */
int nl_send(struct mnl_socket *nl, const struct nl_batch *b, struct nl_refusal *refused, struct cs_error *err);

/* Turns a kernel errno for `what` into the contract's one-line message. */
int nl_fail(struct cs_error *err, int errnum, const char *what, const char *detail);

#endif
