/* Proving the managed firewall by its behaviour, from the inside, with no
 * privilege (cli-sandbox-init --verify-only).
 *
 * Reading nftables needs CAP_NET_ADMIN, which the agent container of a
 * Kubernetes pod does not hold; the firewall an init container programmed
 * into the pod's shared network namespace is proven instead by what it does
 * to packets:
 *   - the gateway tuple accepts a TCP connection (a connect only);
 *   - everything else is refused at once, and with the managed ruleset's own
 *     kind of refusal: TCP with a reset (ECONNREFUSED), UDP with the output
 *     hook's verdict (send() fails with EPERM, which no remote host can
 *     forge) followed by the ICMP admin-prohibited that the ruleset's reject
 *     sends back (type 3 code 13; ICMPv6 type 1 code 1), read from the
 *     socket's error queue.  A table that only drops UDP gives the EPERM
 *     without the ICMP, and fails;
 *   - the destinations include addresses that only a local refusal can
 *     answer at once: a never-routed documentation address on several
 *     ports and an address of the pod's own subnet, so a generic hardening
 *     table, a wider allowlist or a ruleset for another tuple cannot pass by
 *     refusing only the few famous destinations;
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
	PROBE_UDP_SEND,     /* one datagram on a connected socket, then its error queue */
};

enum probe_expect {
	PROBE_EXPECT_OPEN,     /* must connect within the gateway's bound */
	PROBE_EXPECT_REFUSED,  /* must fail at once with this ruleset's refusal */
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
	bool icmp;      /* UDP: an ICMP error came back on the error queue */
	uint8_t icmp_origin, icmp_type, icmp_code;  /* SO_EE_ORIGIN_ICMP(6), its type and code */
	unsigned ms;    /* time taken */
};

/* Bounds, in milliseconds.  The ruleset's refusals arrive in well under a
 * millisecond; the gateway may sit a network away. */
#define PROBE_REFUSAL_MS 2000
#define PROBE_GATEWAY_MS 5000

#define PROBE_MAX 48
#define PROBE_MAX_NAMESERVERS 3    /* per family: what libc uses */
#define PROBE_MAX_PROVIDERS 8

/* One TCP destination that another profile would open (the interactive
 * profile's provider ranges): host byte order. */
struct probe_dest {
	uint32_t addr;
	uint16_t port;
};

/* What the managed profile's probes are built from; addresses in host byte
 * order, 0 (or a count of 0) where there is none. */
struct probe_plan {
	uint32_t gateway;
	uint16_t port;
	uint32_t nameservers[PROBE_MAX_NAMESERVERS];          /* IPv4, from resolv.conf */
	size_t n_nameservers;
	uint8_t nameservers6[PROBE_MAX_NAMESERVERS][16];      /* IPv6, from resolv.conf */
	size_t n_nameservers6;
	uint32_t neighbour;    /* an address of the pod's own subnet: not its own, not the gateway */
	struct probe_dest providers[PROBE_MAX_PROVIDERS];
	size_t n_providers;
};

/* The managed profile's probes, in the order they run: the catch-all
 * refusals (UDP and TCP to the cloud metadata address; TCP and UDP to a
 * never-routed documentation address on several ports, the gateway's among
 * them; TCP to the gateway's address on another port; TCP and UDP to the
 * neighbour), DNS (UDP to the gateway's address and to every nameserver, of
 * both families; TCP to the first IPv4 one), IPv6 (TCP and UDP to a
 * documentation address), the providers another profile would open, then
 * the gateway tuple.  Returns the count (at most PROBE_MAX). */
size_t egress_probes_managed(const struct probe_plan *plan, struct egress_probe *out);

/* The neighbour for a subnet: the highest usable address of net/len that is
 * not one of own[] nor the gateway; 0 when there is none (a /31 or /32, as
 * Calico gives pods).  Pure. */
uint32_t egress_probe_neighbour(uint32_t net, uint8_t len, const uint32_t *own, size_t n_own, uint32_t gateway);

/* Runs one probe with the bound for its expectation. */
void egress_probe_run(const struct egress_probe *p, struct probe_outcome *out);

/* Whether an outcome is what the managed ruleset gives for the probe.  Pure. */
bool egress_probe_passed(const struct egress_probe *p, const struct probe_outcome *o);

/* Renders "udp 169.254.169.254:80" or "tcp [2001:db8::1]:443". */
void egress_probe_name(const struct egress_probe *p, char *buf, size_t len);

/* Runs every probe in order and stops at the first that fails, with
 * err->status CS_EXIT_OSERR and a line naming the destination, what it saw
 * (what got through, or what answered and how), what the managed firewall
 * gives, and the fix.  On success, summary (when given) tells what was
 * proven. */
int egress_probes_verify(const struct egress_probe *probes, size_t n, char *summary, size_t len,
			 struct cs_error *err);

/* The first failing probe's message alone, for the tests: err as
 * egress_probes_verify sets it for p and o. */
int egress_probe_failed(const struct egress_probe *p, const struct probe_outcome *o, struct cs_error *err);

#endif
