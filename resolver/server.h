/* The poll loop: one process, no fork.  UDP and TCP clients on the listen
 * address, one UDP socket (a fresh port and a random id) per query in
 * flight to the upstream.  Each forwarded answer is judged
 * (resolver/answer.h), pinned (resolver/pin_set.h) and only then
 * answered. */
#ifndef CLI_SANDBOX_RESOLVER_SERVER_H
#define CLI_SANDBOX_RESOLVER_SERVER_H

#include <libmnl/libmnl.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#include "resolver/allowlist.h"
#include "resolver/pin_set.h"

#define SERVER_UPSTREAMS_MAX 3

struct server_config {
	struct allowlist names;
	struct sockaddr_in upstream[SERVER_UPSTREAMS_MAX];
	size_t n_upstream;
	struct pin_target target;
	uint32_t timeout_s, margin_s;
	unsigned upstream_wait_ms;    /* per upstream, before the next one (then SERVFAIL) */
};

struct server {
	const struct server_config *cfg;
	int udp, tcp;                 /* bound listeners */
	struct mnl_socket *nl;
};

/* Runs until a fatal error; returns only then (71).  Every line it logs
 * goes to stderr: one per pin ("pinned NAME -> A:P,... for Ts") and one
 * per refused answer. */
int server_run(struct server *s);

#endif
