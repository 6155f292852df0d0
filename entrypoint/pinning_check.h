/* --verify-only in an interactive pod with the pinning resolver
 * (CLI_SANDBOX_DNS=pinned): the pinning proven by behaviour, from the agent
 * container, with no privilege.
 *
 * Reading the ruleset or the set needs CAP_NET_ADMIN, which the agent does
 * not hold; what the resolver sidecar and the firewall init container did is
 * proven instead by what a client sees, each check one line:
 *   1. an allowed name resolves through 127.0.0.1:53 (asked there directly,
 *      not through resolv.conf) and its first address accepts a TCP
 *      connection on the name's port;
 *   2. a random subdomain of that name gets NXDOMAIN from 127.0.0.1:53 (a
 *      resolver that forwards subdomains, the DNS channel, fails);
 *   3. DNS straight to the upstream (and to a never-routed address) is
 *      refused at once, UDP and TCP, with the firewall's own refusal; so is
 *      the cloud metadata address.
 * The first failure stops the start (71) with its line. */
#ifndef CLI_SANDBOX_PINNING_CHECK_H
#define CLI_SANDBOX_PINNING_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "base/model_url.h"
#include "base/status.h"

#define PINNING_CHECK_UPSTREAMS 3
/* The resolver waits 1.5 s for its upstream, then SERVFAILs: a lookup's
 * whole bound leaves room for one resend. */
#define PINNING_CHECK_ANSWER_MS 4000

struct pinning_check {
	char name[MODEL_HOST_MAX];   /* an allowed name */
	const char *origin;          /* where it comes from, for the lines */
	uint16_t port;               /* its port */
	uint32_t upstream[PINNING_CHECK_UPSTREAMS];  /* host order; loopback never */
	size_t n_upstream;
	unsigned answer_ms;          /* how long a lookup may take in all; 0: PINNING_CHECK_ANSWER_MS */
};

/* Runs the three checks in order, logging one line for each that passes.
 * summary (when given) tells what was proven.  0, or -1 with err (71). */
int pinning_check_run(const struct pinning_check *c, char *summary, size_t len, struct cs_error *err);

/* The rcode of msg when it is a response to a query with this id; -1 when
 * it is not one (too short, another id, not a response).  Pure. */
int pinning_check_rcode(const uint8_t *msg, size_t len, uint16_t id);

#endif
