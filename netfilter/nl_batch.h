/* One nftables transaction over netlink: every message gets a sequence number
 * and a description, so an error acknowledgement names the object the kernel
 * refused. */
#ifndef CLI_SANDBOX_NL_BATCH_H
#define CLI_SANDBOX_NL_BATCH_H

#include <libmnl/libmnl.h>
#include <stdint.h>

#include "entrypoint/status.h"
#include "netfilter/model.h"

struct nl_batch;

/* Opens the netfilter netlink socket (EX_OSERR with a clear reason). */
struct mnl_socket *nl_open(struct cs_error *err);

/* The full transaction for rs: new table, delete table, new table (so any
 * earlier copy is replaced), sets with their elements, chains, rules. */
struct nl_batch *nl_batch_build(const struct nf_ruleset *rs, struct cs_error *err);
void nl_batch_free(struct nl_batch *b);

/* Sends the batch and reads every acknowledgement; 0 when the kernel
 * accepted every message (so committed the transaction). */
int nl_batch_send(struct mnl_socket *nl, struct nl_batch *b, struct cs_error *err);

/* Turns a kernel errno for `what` into the contract's one-line message. */
int nl_fail(struct cs_error *err, int errnum, const char *what, const char *detail);

#endif
