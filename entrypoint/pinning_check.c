#include "entrypoint/pinning_check.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/ipv4.h"
#include "netfilter/egress_probe.h"
#include "profiles/dns_wire.h"

#define RESOLVER_ADDR 0x7f000001u  /* 127.0.0.1, where the sidecar answers */
#define NEVER_ROUTED 0xcb007101u   /* 203.0.113.1 (TEST-NET-3): only a local refusal answers */
#define METADATA 0xa9fea9feu       /* 169.254.169.254 */
#define MAX_ADDRS 32

/* What one lookup at 127.0.0.1:53 saw. */
struct answer {
	bool answered;   /* a response to our query came back */
	int rcode;
	uint32_t addrs[MAX_ADDRS];
	size_t n;
	int err;         /* a socket error instead (ECONNREFUSED: nothing listens) */
	unsigned ms;
};

int pinning_check_rcode(const uint8_t *msg, size_t len, uint16_t id)
{
	if (len < 12 || ((msg[0] << 8) | msg[1]) != id || !(msg[2] & 0x80))
		return -1;
	return msg[3] & 0x0f;
}

static const char *rcode_name(int rcode)
{
	static const char *const names[] = { "NOERROR", "FORMERR", "SERVFAIL", "NXDOMAIN", "NOTIMP", "REFUSED" };

	return rcode >= 0 && rcode < 6 ? names[rcode] : "another rcode";
}

static uint16_t random_id(void)
{
	uint16_t id = 0;

	if (getrandom(&id, sizeof(id), GRND_NONBLOCK) != (ssize_t)sizeof(id))
		id = (uint16_t)(cs_now_ms() ^ (long long)getpid());
	return id;
}

/* One A query for name, over UDP, to 127.0.0.1:53: sent, then sent again
 * halfway through the bound (a datagram may be lost; the resolver answers
 * every copy). */
static void ask(const char *name, unsigned bound_ms, struct answer *a)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(53), .sin_addr.s_addr = htonl(RESOLVER_ADDR) };
	uint8_t query[DNS_QUERY_MAX], msg[1500];
	uint16_t id = random_id();
	size_t qlen = dns_query_build(query, id, name);
	long long start = cs_now_ms(), deadline = start + bound_ms, resend = start + bound_ms / 2;
	bool resent = false;
	int fd;

	memset(a, 0, sizeof(*a));
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || qlen == 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    send(fd, query, qlen, 0) < 0) {
		a->err = fd < 0 || qlen != 0 ? errno : EINVAL;
		goto out;
	}
	for (;;) {
		long long now = cs_now_ms(), until = resent ? deadline : resend;
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t got;
		int r;

		if (now >= deadline)
			break;
		if (!resent && now >= resend) {
			resent = true;
			if (send(fd, query, qlen, 0) < 0) {
				a->err = errno;
				break;
			}
			continue;
		}
		r = poll(&pfd, 1, (int)(until - now));
		if (r < 0 && errno != EINTR) {
			a->err = errno;
			break;
		}
		if (r <= 0)
			continue;
		got = recv(fd, msg, sizeof(msg), 0);
		if (got < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			a->err = errno;  /* ECONNREFUSED: the port unreachable of loopback */
			break;
		}
		a->rcode = pinning_check_rcode(msg, (size_t)got, id);
		if (a->rcode < 0)
			continue;  /* not the answer to this query */
		a->answered = true;
		if (a->rcode == 0 && !dns_answer_addrs(msg, (size_t)got, id, name, a->addrs, MAX_ADDRS, &a->n))
			a->n = 0;
		break;
	}
out:
	if (fd >= 0)
		close(fd);
	a->ms = (unsigned)(cs_now_ms() - start);
}

static const char fix_resolver[] =
	"run cli-sandbox-resolver as the pod's native sidecar (deploy/kubernetes/interactive/pod.yaml) with this name in its --allow list "
	"and the cluster DNS as its --upstream";

/* A lookup that got no answer at all: why, in words. */
static int no_answer(const char *name, const struct answer *a, unsigned bound_ms, struct cs_error *err)
{
	if (a->err == ECONNREFUSED)
		return cs_fail(err, CS_EXIT_OSERR,
			       "pinned DNS: nothing answers DNS on 127.0.0.1:53 (a lookup of %s was refused): the pinning resolver is not running in this pod; %s",
			       name, fix_resolver);
	if (a->err)
		return cs_fail(err, CS_EXIT_OSERR, "pinned DNS: a lookup of %s at 127.0.0.1:53 failed (%s); %s", name, strerror(a->err), fix_resolver);
	return cs_fail(err, CS_EXIT_OSERR, "pinned DNS: no answer from 127.0.0.1:53 for %s within %u ms; %s", name, bound_ms, fix_resolver);
}

static int check_allowed(const struct pinning_check *c, unsigned bound_ms, char *line, size_t len, struct cs_error *err)
{
	struct answer a;
	struct egress_probe p = { .kind = PROBE_TCP_CONNECT, .expect = PROBE_EXPECT_OPEN, .port = c->port, .what = "an allowed name" };
	struct probe_outcome o;
	char addr[IPV4_TEXT_MAX];
	uint32_t be;

	ask(c->name, bound_ms, &a);
	if (!a.answered)
		return no_answer(c->name, &a, bound_ms, err);
	if (a.rcode != 0 || a.n == 0)
		return cs_fail(err, CS_EXIT_OSERR,
			       "pinned DNS: %s (%s) got %s%s from 127.0.0.1:53 instead of an address; the resolver's log says why "
			       "(a name missing from its --allow list, an upstream it cannot reach, a refused answer); %s",
			       c->name, c->origin, rcode_name(a.rcode), a.rcode == 0 ? " without an A record" : "", fix_resolver);
	ipv4_to_string(a.addrs[0], addr);
	be = htonl(a.addrs[0]);
	memcpy(p.addr, &be, 4);
	egress_probe_run(&p, &o);
	if (!egress_probe_passed(&p, &o))
		return cs_fail(err, CS_EXIT_OSERR,
			       "pinned DNS: %s resolved to %s through 127.0.0.1:53, but tcp %s:%u %s; the answer was not pinned into the firewall's set "
			       "(the firewall init container needs CLI_SANDBOX_DNS=pinned and the resolver NET_ADMIN), or the host is down",
			       c->name, addr, addr, (unsigned)c->port,
			       o.timeout ? "gave no connection within 5000 ms" : o.err == ECONNREFUSED ? "was refused" : strerror(o.err));
	snprintf(line, len, "%s (%s) resolved through 127.0.0.1:53 to %s (%zu address%s) in %u ms and connected on port %u in %u ms",
		 c->name, c->origin, addr, a.n, a.n == 1 ? "" : "es", a.ms, (unsigned)c->port, o.ms);
	return 0;
}

static int check_subdomain(const struct pinning_check *c, unsigned bound_ms, char *line, size_t len, struct cs_error *err)
{
	char sub[DNS_NAME_MAX + 1];
	uint32_t r = (uint32_t)random_id() << 16 | random_id();
	struct answer a;

	char label[24];
	size_t nlen = strnlen(c->name, DNS_NAME_MAX), llen;

	/* a label nobody allows, so that only a forwarder would know it */
	llen = (size_t)snprintf(label, sizeof(label), "cs-verify-%08x.", (unsigned)r);
	if (llen + nlen > DNS_NAME_MAX)
		llen = (size_t)snprintf(label, sizeof(label), "x.");
	if (llen + nlen > DNS_NAME_MAX)
		nlen = DNS_NAME_MAX - llen;  /* a name of 252 or 253: the query is refused as a bad name and fails the check */
	memcpy(sub, label, llen);
	memcpy(sub + llen, c->name, nlen);
	sub[llen + nlen] = '\0';
	ask(sub, bound_ms, &a);
	if (!a.answered)
		return no_answer(sub, &a, bound_ms, err);
	if (a.rcode != 3)
		return cs_fail(err, CS_EXIT_OSERR,
			       "pinned DNS: %s, a subdomain of the allowed %s, got %s from 127.0.0.1:53 instead of NXDOMAIN: what answers there "
			       "passes names the pinning resolver never forwards (a DNS channel out of the pod); %s",
			       sub, c->name, rcode_name(a.rcode), fix_resolver);
	snprintf(line, len, "%s, a subdomain of %s, got NXDOMAIN from 127.0.0.1:53 in %u ms", sub, c->name, a.ms);
	return 0;
}

static const char *seen(const struct probe_outcome *o, char *buf, size_t len)
{
	if (o->done)
		snprintf(buf, len, "got through");
	else if (o->timeout)
		snprintf(buf, len, "got no answer within %d ms", PROBE_REFUSAL_MS);
	else if (o->err == EPERM && !o->icmp)
		snprintf(buf, len, "was dropped without the ICMP admin-prohibited the firewall sends");
	else
		snprintf(buf, len, "answered %s", strerror(o->err));
	return buf;
}

/* DNS to the upstream itself, and to a never-routed address, UDP and TCP,
 * then the cloud metadata address: refused at once, the firewall's way. */
static int check_direct(const struct pinning_check *c, char *line, size_t len, struct cs_error *err)
{
	struct egress_probe probes[4 * PINNING_CHECK_UPSTREAMS + 4];
	size_t n = 0;
	unsigned slowest = 0;
	char name[80], saw[96], ups[64] = "";
	size_t used = 0;

	for (size_t i = 0; i < c->n_upstream; i++) {
		struct egress_probe u = { .kind = PROBE_UDP_SEND, .expect = PROBE_EXPECT_REFUSED, .port = 53, .what = "the upstream" };
		uint32_t be = htonl(c->upstream[i]);
		char a[IPV4_TEXT_MAX];

		memcpy(u.addr, &be, 4);
		probes[n++] = u;
		u.kind = PROBE_TCP_CONNECT;
		probes[n++] = u;
		used += (size_t)snprintf(ups + used, used < sizeof(ups) ? sizeof(ups) - used : 0, "%s%s", i ? "," : "",
					 ipv4_to_string(c->upstream[i], a));
		if (used >= sizeof(ups))
			used = sizeof(ups) - 1;
	}
	for (int k = 0; k < 4; k++) {
		struct egress_probe e = { .kind = k % 2 ? PROBE_TCP_CONNECT : PROBE_UDP_SEND, .expect = PROBE_EXPECT_REFUSED,
					  .port = k < 2 ? 53 : 80, .what = k < 2 ? "a never-routed address" : "the cloud metadata address" };
		uint32_t be = htonl(k < 2 ? NEVER_ROUTED : METADATA);

		memcpy(e.addr, &be, 4);
		probes[n++] = e;
	}
	for (size_t i = 0; i < n; i++) {
		struct probe_outcome o;

		egress_probe_run(&probes[i], &o);
		if (!egress_probe_passed(&probes[i], &o)) {
			egress_probe_name(&probes[i], name, sizeof(name));
			return cs_fail(err, CS_EXIT_OSERR,
				       "pinned DNS: %s (%s) %s instead of an immediate refusal (%s): the command could ask past the pinning resolver; "
				       "run the firewall init container with CLI_SANDBOX_DNS=pinned, CLI_SANDBOX_RESOLVER_UID and CLI_SANDBOX_DNS_UPSTREAM",
				       name, probes[i].what, seen(&o, saw, sizeof(saw)),
				       probes[i].kind == PROBE_UDP_SEND ? "EPERM, then ICMP admin-prohibited" : "a TCP reset");
		}
		slowest = o.ms > slowest ? o.ms : slowest;
	}
	snprintf(line, len, "direct DNS refused at once (UDP and TCP) to %s%s%s and to 203.0.113.1, the cloud metadata address too; %zu probes, the slowest %u ms",
		 c->n_upstream ? "the upstream " : "", ups, c->n_upstream ? "" : "(no upstream configured)", n, slowest);
	return 0;
}

int pinning_check_run(const struct pinning_check *c, char *summary, size_t len, struct cs_error *err)
{
	unsigned bound = c->answer_ms ? c->answer_ms : PINNING_CHECK_ANSWER_MS;
	char line[1024];

	if (check_allowed(c, bound, line, sizeof(line), err))
		return -1;
	cs_info("pinned DNS: %s", line);
	if (check_subdomain(c, bound, line, sizeof(line), err))
		return -1;
	cs_info("pinned DNS: %s", line);
	if (check_direct(c, line, sizeof(line), err))
		return -1;
	cs_info("pinned DNS: %s", line);
	if (summary)
		snprintf(summary, len, "pinned DNS proven for %s:%u (resolved and connected, subdomain NXDOMAIN, direct DNS refused)",
			 c->name, (unsigned)c->port);
	return 0;
}
