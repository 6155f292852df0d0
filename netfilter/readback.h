/* After the commit: read our table back from the kernel and compare it with
 * what was sent, so a start never trusts an acknowledgement alone.
 *
 * Every reply is parsed in place (no per-object allocation), every dump is
 * filtered to our table, and the whole read belongs to one ruleset
 * generation: the generation is read before and after, every reply carries
 * it, and a read that straddles a commit by someone else is done once more
 * (then fails). */
#ifndef CLI_SANDBOX_READBACK_H
#define CLI_SANDBOX_READBACK_H

#include <libmnl/libmnl.h>

#include "base/status.h"
#include "netfilter/model.h"
#include "netfilter/nl_batch.h"

/* 0 when the kernel holds exactly what b sent for rs and nothing else in
 * our table: the table (not dormant, not owned), every chain with its hook,
 * priority, policy and type, every rule of every chain in order with every
 * expression attribute, every set with its flags and key, and every set's
 * elements (compared with the model, in the kernel's own order).  Otherwise
 * err names the first difference (CS_EXIT_OSERR). */
int readback_verify(struct mnl_socket *nl, const struct nf_ruleset *rs, const struct nl_batch *b,
		    struct cs_error *err);

#endif
