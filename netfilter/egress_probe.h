/* Proving the managed firewall by its behaviour, from the inside, with no
 * privilege (cli-sandbox-init --verify-only).
 *
 * Reading nftables needs CAP_NET_ADMIN, which the agent container of a
 * Kubernetes pod does not hold; the firewall an init container programmed
 * into the pod's shared network namespace is proven instead by what it does
 * to a few packets:
 *   - the gateway tuple accepts a TCP connection (a connect only);
 *   - everything else is refused at once, with exactly the errors this
 *     ruleset gives: a UDP send fails with EPERM (the output hook's verdict,
 *     which no remote host can forge); a TCP connect with ECONNREFUSED (a
 *     reset) or EHOSTUNREACH (ICMP admin-prohibited; EACCES in IPv6);
 *   - IPv6 is refused the same way, or has no route or address at all.
 * A timeout is a failure: a firewall that drops silently, or no firewall in
 * front of a silent network, both look like one.  Every wait is bounded. */
#ifndef CLI_SANDBOX_EGRESS_PROBE_H
#define CLI_SANDBOX_EGRESS_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/status.h"

enum probe_kind {
	PROBE_TCP_CONNECT,  /* a non-blocking connect, then close */
	PROBE_UDP_SEND,     /* one datagram on a connected socket */
};

enum probe_expect {
	PROBE_EXPECT_OPEN,     /* must connect within the gateway's bound */
	PROBE_EXPECT_REFUSED,  /* must fail at once with this ruleset's errors */
};

struct egress_probe {
	enum probe_kind kind;
	enum probe_expect expect;
	bool ipv6;
	uint8_t addr[16];       /* network byte order; IPv4 in the first 4 bytes */
	uint16_t port;
	const char *what;       /* why this destination, for the messages */
};

/* What one probe saw. */
struct probe_outcome {
	bool done;      /* connected (TCP) or sent (UDP) */
	bool timeout;   /* no answer within the bound */
	int err;        /* errno of the failure, when neither */
	unsigned ms;    /* time taken */
};

/* Bounds, in milliseconds.  The ruleset's refusals arrive in well under a
 * millisecond (an ICMPv6 admin-prohibited to a TCP SYN only after the first
 * retransmit, about 1 s); the gateway may sit a network away. */
#define PROBE_REFUSAL_MS 2000
#define PROBE_GATEWAY_MS 5000

#define PROBE_MAX 16

/* The managed profile's probes, in the order they run: the catch-all reject
 * (UDP and TCP to the cloud metadata address, TCP to the gateway's address
 * on another port), DNS (UDP to the gateway's address and to every IPv4
 * nameserver given, TCP to the first of them), IPv6 (TCP and UDP to a
 * documentation address), then the gateway tuple.  gateway and nameservers
 * in host byte order.  Returns the count (at most PROBE_MAX). */
size_t egress_probes_managed(uint32_t gateway, uint16_t port, const uint32_t *nameservers,
			     size_t n_nameservers, struct egress_probe *out);

/* Runs one probe with the bound for its expectation. */
void egress_probe_run(const struct egress_probe *p, struct probe_outcome *out);

/* Whether an outcome is what the managed ruleset gives for the probe.  Pure. */
bool egress_probe_passed(const struct egress_probe *p, const struct probe_outcome *o);

/* Renders "udp 169.254.169.254:80" or "tcp [2001:db8::1]:443". */
void egress_probe_name(const struct egress_probe *p, char *buf, size_t len);

/* Runs every probe in order and stops at the first that fails, with
 * err->status CS_EXIT_OSERR and a line naming the destination, what it saw,
 * what the firewall gives, and the fix.  On success, summary (when given)
 * tells what was proven. */
int egress_probes_verify(const struct egress_probe *probes, size_t n, char *summary, size_t len,
			 struct cs_error *err);

#endif
