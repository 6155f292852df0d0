#include "netfilter/egress_probe.h"

#include "base/clock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* 169.254.169.254: the cloud metadata service, the address an agent is most
 * likely to want and least allowed to reach. */
#define METADATA_ADDR 0xa9fea9feu
/* 2001:db8::1 (RFC 3849): never a real host, so without a firewall nothing
 * answers there either; with one, the refusal is local and immediate. */
static const uint8_t ipv6_doc_addr[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };

/* A DNS query for the root's NS records: what a resolver would send. */
static const unsigned char dns_query[] = {
	0x63, 0x73, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x02, 0x00, 0x01,
};

static struct egress_probe v4(enum probe_kind kind, enum probe_expect expect, uint32_t addr,
			      uint16_t port, const char *what)
{
	struct egress_probe p = { .kind = kind, .expect = expect, .port = port, .what = what };
	uint32_t be = htonl(addr);

	memcpy(p.addr, &be, 4);
	return p;
}

size_t egress_probes_managed(uint32_t gateway, uint16_t port, const uint32_t *nameservers,
			     size_t n_nameservers, struct egress_probe *out)
{
	size_t n = 0, i;
	uint16_t other_port = port == 65535 ? 65534 : (uint16_t)(port + 1);
	uint32_t dns_tcp = gateway;

	out[n++] = v4(PROBE_UDP_SEND, PROBE_EXPECT_REFUSED, METADATA_ADDR, 80, "the cloud metadata address");
	out[n++] = v4(PROBE_TCP_CONNECT, PROBE_EXPECT_REFUSED, METADATA_ADDR, 80, "the cloud metadata address");
	out[n++] = v4(PROBE_TCP_CONNECT, PROBE_EXPECT_REFUSED, gateway, other_port, "the gateway's address on another port");
	out[n++] = v4(PROBE_UDP_SEND, PROBE_EXPECT_REFUSED, gateway, 53, "DNS at the gateway's address");
	for (i = 0; i < n_nameservers && n < PROBE_MAX - 4; i++) {
		out[n++] = v4(PROBE_UDP_SEND, PROBE_EXPECT_REFUSED, nameservers[i], 53, "DNS at a resolv.conf nameserver");
		if (i == 0)
			dns_tcp = nameservers[0];
	}
	out[n++] = v4(PROBE_TCP_CONNECT, PROBE_EXPECT_REFUSED, dns_tcp, 53,
		      n_nameservers ? "DNS over TCP at a resolv.conf nameserver" : "DNS over TCP at the gateway's address");
	out[n] = (struct egress_probe){ .kind = PROBE_TCP_CONNECT, .expect = PROBE_EXPECT_REFUSED,
					.ipv6 = true, .port = 443, .what = "IPv6" };
	memcpy(out[n++].addr, ipv6_doc_addr, 16);
	out[n] = (struct egress_probe){ .kind = PROBE_UDP_SEND, .expect = PROBE_EXPECT_REFUSED,
					.ipv6 = true, .port = 53, .what = "DNS over IPv6" };
	memcpy(out[n++].addr, ipv6_doc_addr, 16);
	out[n++] = v4(PROBE_TCP_CONNECT, PROBE_EXPECT_OPEN, gateway, port, "the model gateway");
	return n;
}

static socklen_t sockaddr_of(const struct egress_probe *p, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (p->ipv6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(p->port);
		memcpy(&s6->sin6_addr, p->addr, 16);
		return sizeof(*s6);
	}
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

	s4->sin_family = AF_INET;
	s4->sin_port = htons(p->port);
	memcpy(&s4->sin_addr, p->addr, 4);
	return sizeof(*s4);
}

/* Waits for a non-blocking connect until the deadline; EINTR restarts the
 * wait with what is left of it. */
static void wait_connect(int fd, long long deadline, struct probe_outcome *o)
{
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	int soerr = 0;
	socklen_t sl = sizeof(soerr);

	for (;;) {
		long long left = deadline - cs_now_ms();
		int r;

		if (left <= 0) {
			o->timeout = true;
			return;
		}
		r = poll(&pfd, 1, (int)left);
		if (r > 0)
			break;
		if (r == 0) {
			o->timeout = true;
			return;
		}
		if (errno != EINTR) {
			o->err = errno;
			return;
		}
	}
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) != 0)
		o->err = errno;
	else if (soerr != 0)
		o->err = soerr;
	else
		o->done = true;
}

void egress_probe_run(const struct egress_probe *p, struct probe_outcome *o)
{
	struct sockaddr_storage ss;
	socklen_t sl = sockaddr_of(p, &ss);
	long long start = cs_now_ms();
	int type = p->kind == PROBE_TCP_CONNECT ? SOCK_STREAM : SOCK_DGRAM;
	int fd;

	memset(o, 0, sizeof(*o));
	fd = socket(p->ipv6 ? AF_INET6 : AF_INET, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		o->err = errno;
	} else if (connect(fd, (struct sockaddr *)&ss, sl) == 0) {
		/* TCP: connected at once (loopback-fast); UDP: only routed. */
		if (p->kind == PROBE_TCP_CONNECT)
			o->done = true;
		else if (send(fd, dns_query, sizeof(dns_query), 0) < 0)
			o->err = errno;
		else
			o->done = true;
	} else if (errno == EINPROGRESS && p->kind == PROBE_TCP_CONNECT) {
		wait_connect(fd, start + (p->expect == PROBE_EXPECT_OPEN ? PROBE_GATEWAY_MS : PROBE_REFUSAL_MS), o);
	} else {
		o->err = errno;
	}
	if (fd >= 0)
		close(fd);
	o->ms = (unsigned)(cs_now_ms() - start);
}

/* The kernel's answers that mean "this IPv6 packet goes nowhere": no IPv6
 * route, no IPv6 address, or no IPv6 at all. */
static bool ipv6_absent(int err)
{
	return err == ENETUNREACH || err == EADDRNOTAVAIL || err == EAFNOSUPPORT;
}

bool egress_probe_passed(const struct egress_probe *p, const struct probe_outcome *o)
{
	if (p->expect == PROBE_EXPECT_OPEN)
		return o->done;
	if (o->done || o->timeout)
		return false;
	if (p->ipv6 && ipv6_absent(o->err))
		return true;
	if (p->kind == PROBE_UDP_SEND)
		return o->err == EPERM;  /* the output hook's drop verdict, at send */
	if (o->err == ECONNREFUSED)
		return true;             /* reject with tcp reset */
	return o->err == (p->ipv6 ? EACCES : EHOSTUNREACH);  /* icmpx admin-prohibited */
}

void egress_probe_name(const struct egress_probe *p, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	inet_ntop(p->ipv6 ? AF_INET6 : AF_INET, p->addr, a, sizeof(a));
	snprintf(buf, len, p->ipv6 ? "%s [%s]:%u" : "%s %s:%u",
		 p->kind == PROBE_TCP_CONNECT ? "tcp" : "udp", a, (unsigned)p->port);
}

static const char *errno_name(int e)
{
	switch (e) {
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ECONNREFUSED: return "ECONNREFUSED";
	case EHOSTUNREACH: return "EHOSTUNREACH";
	case ENETUNREACH: return "ENETUNREACH";
	case EADDRNOTAVAIL: return "EADDRNOTAVAIL";
	case EAFNOSUPPORT: return "EAFNOSUPPORT";
	case ETIMEDOUT: return "ETIMEDOUT";
	case ECONNRESET: return "ECONNRESET";
	default: return strerror(e);
	}
}

static const char fix_firewall[] =
	"run cli-sandbox-init --firewall-only, with the same configuration, as an init container "
	"of this pod (deploy/kubernetes/job.yaml)";

static int failed(const struct egress_probe *p, const struct probe_outcome *o, struct cs_error *err)
{
	char name[80];
	const char *want;

	egress_probe_name(p, name, sizeof(name));
	if (p->expect == PROBE_EXPECT_OPEN) {
		if (o->timeout)
			return cs_fail(err, CS_EXIT_OSERR,
				       "the self-check got no TCP connection to %s (%s) within %d ms; "
				       "check that the gateway is up and reachable from the pod, and that the NetworkPolicy allows it",
				       p->what, name, PROBE_GATEWAY_MS);
		return cs_fail(err, CS_EXIT_OSERR,
			       "the self-check could not connect to %s (%s): %s; "
			       "check that the gateway is up and that the init container ran with the same TASK_AGENT_MODEL_BASE_URL",
			       p->what, name, errno_name(o->err));
	}
	want = p->kind == PROBE_UDP_SEND ? "EPERM at send" : p->ipv6 ? "ECONNREFUSED or EACCES" : "ECONNREFUSED or EHOSTUNREACH";
	if (o->done)
		return cs_fail(err, CS_EXIT_OSERR,
			       "the egress firewall is missing: %s (%s) was %s instead of refused (the firewall gives %s); %s",
			       name, p->what, p->kind == PROBE_UDP_SEND ? "sent" : "connected", want, fix_firewall);
	if (o->timeout)
		return cs_fail(err, CS_EXIT_OSERR,
			       "the egress firewall is missing or drops silently: %s (%s) got no answer within %d ms "
			       "instead of an immediate refusal (%s); %s",
			       name, p->what, PROBE_REFUSAL_MS, want, fix_firewall);
	return cs_fail(err, CS_EXIT_OSERR,
		       "the egress firewall is missing or not cli-sandbox's: %s (%s) failed with %s, not the refusal "
		       "the firewall gives (%s); %s",
		       name, p->what, errno_name(o->err), want, fix_firewall);
}

int egress_probes_verify(const struct egress_probe *probes, size_t n, char *summary, size_t len,
			 struct cs_error *err)
{
	unsigned refused = 0, ipv6_absent_seen = 0, gateway_ms = 0;
	char gw[80] = "";

	for (size_t i = 0; i < n; i++) {
		struct probe_outcome o;

		egress_probe_run(&probes[i], &o);
		if (!egress_probe_passed(&probes[i], &o))
			return failed(&probes[i], &o, err);
		if (probes[i].expect == PROBE_EXPECT_OPEN) {
			egress_probe_name(&probes[i], gw, sizeof(gw));
			gateway_ms = o.ms;
		} else {
			refused++;
			if (probes[i].ipv6 && ipv6_absent(o.err))
				ipv6_absent_seen++;
		}
	}
	if (summary)
		snprintf(summary, len, "gateway %s connected in %u ms; %u other destinations refused at once%s",
			 gw[0] ? gw : "(none)", gateway_ms, refused,
			 ipv6_absent_seen ? " (IPv6: no route or address)" : "");
	return 0;
}
