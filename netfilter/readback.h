/* After the commit: read our table back from the kernel and compare it with
 * the model, so a start never trusts an acknowledgement alone. */
#ifndef CLI_SANDBOX_READBACK_H
#define CLI_SANDBOX_READBACK_H

#include <libmnl/libmnl.h>

#include "base/status.h"
#include "netfilter/model.h"

/* 0 when the kernel's table equals rs (table flags, chains with hook,
 * priority and policy, every rule's expressions, every set's elements);
 * otherwise err names the first difference (CS_EXIT_OSERR). */
int readback_verify(struct mnl_socket *nl, const struct nf_ruleset *rs, struct cs_error *err);

#endif
