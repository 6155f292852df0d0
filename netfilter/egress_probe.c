#include "netfilter/egress_probe.h"

#include "base/clock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/errqueue.h>
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
/* 203.0.113.1 (TEST-NET-3, RFC 5737): never routed, so nothing but a local
 * refusal answers there at once; a table that refuses only the famous
 * destinations lets it through (a timeout). */
#define DOC_ADDR 0xcb007101u
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

static struct egress_probe v6(enum probe_kind kind, const uint8_t addr[16], uint16_t port, const char *what)
{
	struct egress_probe p = { .kind = kind, .expect = PROBE_EXPECT_REFUSED, .ipv6 = true, .port = port, .what = what };

	memcpy(p.addr, addr, 16);
	return p;
}

/* Up to three distinct ports: the gateway's first, then from extra[]. */
static size_t ports_with(uint16_t port, const uint16_t *extra, size_t n_extra, uint16_t out[3])
{
	size_t n = 0;

	out[n++] = port;
	for (size_t i = 0; i < n_extra && n < 3; i++)
		if (extra[i] != port)
			out[n++] = extra[i];
	return n;
}

size_t egress_probes_managed(const struct probe_plan *plan, struct egress_probe *out)
{
	static const uint16_t tcp_ports[] = { 443, 80, 22 }, udp_ports[] = { 443, 123, 80 };
	uint16_t gwport = plan->port, other_port = gwport == 65535 ? 65534 : (uint16_t)(gwport + 1), ports[3];
	uint32_t doc = plan->gateway == DOC_ADDR ? DOC_ADDR + 1 : DOC_ADDR;
	uint32_t dns_tcp = plan->n_nameservers ? plan->nameservers[0] : plan->gateway;
	size_t n = 0, np;

	out[n++] = v4(PROBE_UDP_SEND, PROBE_EXPECT_REFUSED, METADATA_ADDR, 80, "the cloud metadata address");
	out[n++] = v4(PROBE_TCP_CONNECT, PROBE_EXPECT_REFUSED, METADATA_ADDR, 80, "the cloud metadata address");
	np = ports_with(gwport, tcp_ports, 3, ports);
	for (size_t i = 0; i < np; i++)
		out[n++] = v4(PROBE_TCP_CONNECT, PROBE_EXPECT_REFUSED, doc, ports[i], "a never-routed documentation address");
	np = ports_with(gwport, udp_ports, 3, ports);
	for (size_t i = 0; i < np; i++)
		out[n++] = v4(PROBE_UDP_SEND, PROBE_EXPECT_REFUSED, doc, ports[i], "a never-routed documentation address");
	out[n++] = v4(PROBE_TCP_CONNECT, PROBE_EXPECT_REFUSED, plan->gateway, other_port, "the gateway's address on another port");
	if (plan->neighbour) {
		out[n++] = v4(PROBE_TCP_CONNECT, PROBE_EXPECT_REFUSED, plan->neighbour, gwport,
			      "an address of the pod's own subnet, on the gateway's port");
		out[n++] = v4(PROBE_UDP_SEND, PROBE_EXPECT_REFUSED, plan->neighbour, gwport,
			      "an address of the pod's own subnet, on the gateway's port");
	}
	out[n++] = v4(PROBE_UDP_SEND, PROBE_EXPECT_REFUSED, plan->gateway, 53, "DNS at the gateway's address");
	for (size_t i = 0; i < plan->n_nameservers && i < PROBE_MAX_NAMESERVERS; i++)
		out[n++] = v4(PROBE_UDP_SEND, PROBE_EXPECT_REFUSED, plan->nameservers[i], 53, "DNS at a resolv.conf nameserver");
	out[n++] = v4(PROBE_TCP_CONNECT, PROBE_EXPECT_REFUSED, dns_tcp, 53,
		      plan->n_nameservers ? "DNS over TCP at a resolv.conf nameserver" : "DNS over TCP at the gateway's address");
	for (size_t i = 0; i < plan->n_nameservers6 && i < PROBE_MAX_NAMESERVERS; i++)
		out[n++] = v6(PROBE_UDP_SEND, plan->nameservers6[i], 53, "DNS at a resolv.conf IPv6 nameserver");
	out[n++] = v6(PROBE_TCP_CONNECT, ipv6_doc_addr, 443, "IPv6");
	out[n++] = v6(PROBE_UDP_SEND, ipv6_doc_addr, 53, "DNS over IPv6");
	for (size_t i = 0; i < plan->n_providers && i < PROBE_MAX_PROVIDERS; i++)
		out[n++] = v4(PROBE_TCP_CONNECT, PROBE_EXPECT_REFUSED, plan->providers[i].addr, plan->providers[i].port,
			      "a provider range that only the interactive profile opens");
	out[n++] = v4(PROBE_TCP_CONNECT, PROBE_EXPECT_OPEN, plan->gateway, gwport, "the model gateway");
	return n;
}

uint32_t egress_probe_neighbour(uint32_t net, uint8_t len, const uint32_t *own, size_t n_own, uint32_t gateway)
{
	uint32_t mask = len == 0 ? 0 : 0xffffffffu << (32 - len);
	uint32_t first = (net & mask) + 1, a;

	if (len > 30)
		return 0;  /* no room beside the pod itself */
	/* From the top down, the broadcast address left out: the high end of a
	 * pod subnet is the least likely to hold a live host. */
	for (a = (net | ~mask) - 1; a >= first; a--) {
		bool taken = a == gateway;

		for (size_t i = 0; i < n_own && !taken; i++)
			taken = own[i] == a;
		if (!taken)
			return a;
	}
	return 0;
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

/* After a refused send: the ICMP error the reject sent back to this socket
 * (IP_RECVERR), waited for until the deadline. */
static void read_icmp(int fd, bool ipv6, long long deadline, struct probe_outcome *o)
{
	struct pollfd pfd = { .fd = fd, .events = 0 };  /* POLLERR is always reported */
	union {
		char buf[CMSG_SPACE(sizeof(struct sock_extended_err) + sizeof(struct sockaddr_in6))];
		struct cmsghdr align;
	} ctl;
	char data[64];
	struct iovec iov = { .iov_base = data, .iov_len = sizeof(data) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf) };

	for (;;) {
		long long left = deadline - cs_now_ms();

		if (left <= 0 || poll(&pfd, 1, (int)left) == 0)
			return;  /* no ICMP: o->icmp stays false */
		if (recvmsg(fd, &mh, MSG_ERRQUEUE | MSG_DONTWAIT) >= 0)
			break;
		if (errno != EINTR && errno != EAGAIN)
			return;
	}
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		const struct sock_extended_err *ee = (const struct sock_extended_err *)CMSG_DATA(c);

		if ((c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_RECVERR && !ipv6) ||
		    (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_RECVERR && ipv6)) {
			o->icmp = true;
			o->icmp_origin = ee->ee_origin;
			o->icmp_type = ee->ee_type;
			o->icmp_code = ee->ee_code;
			return;
		}
	}
}

static void run_udp(int fd, const struct egress_probe *p, long long start, struct probe_outcome *o)
{
	int one = 1;

	/* The ICMP error of the refusal goes to the error queue, with its type
	 * and code, instead of a bare errno on the next call. */
	setsockopt(fd, p->ipv6 ? IPPROTO_IPV6 : IPPROTO_IP, p->ipv6 ? IPV6_RECVERR : IP_RECVERR, &one, sizeof(one));
	if (send(fd, dns_query, sizeof(dns_query), 0) >= 0) {
		o->done = true;
		return;
	}
	o->err = errno;
	if (o->err == EPERM)
		read_icmp(fd, p->ipv6, start + PROBE_REFUSAL_MS, o);
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
		else
			run_udp(fd, p, start, o);
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

/* The ICMP error that the managed ruleset's "reject with icmpx
 * admin-prohibited" sends: ICMP destination unreachable, communication
 * administratively prohibited (3/13), or ICMPv6's (1/1). */
static bool admin_prohibited(const struct egress_probe *p, const struct probe_outcome *o)
{
	if (!o->icmp)
		return false;
	if (p->ipv6)
		return o->icmp_origin == SO_EE_ORIGIN_ICMP6 && o->icmp_type == 1 && o->icmp_code == 1;
	return o->icmp_origin == SO_EE_ORIGIN_ICMP && o->icmp_type == 3 && o->icmp_code == 13;
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
		return o->err == EPERM && admin_prohibited(p, o);  /* the output hook's reject, at send */
	return o->err == ECONNREFUSED;  /* reject with tcp reset */
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

int egress_probe_failed(const struct egress_probe *p, const struct probe_outcome *o, struct cs_error *err)
{
	char name[80];
	const char *want = p->kind == PROBE_UDP_SEND ? "EPERM at send, then ICMP admin-prohibited" : "a TCP reset (ECONNREFUSED)";

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
	if (o->done)
		return cs_fail(err, CS_EXIT_OSERR,
			       "the egress firewall is missing or wider than the managed one: %s (%s) got through (%s) instead of "
			       "being refused (the managed firewall gives %s); %s",
			       name, p->what, p->kind == PROBE_UDP_SEND ? "sent" : "connected", want, fix_firewall);
	if (o->timeout)
		return cs_fail(err, CS_EXIT_OSERR,
			       "the egress firewall is missing, wider than the managed one, or drops silently: %s (%s) got through "
			       "or no answer within %d ms instead of an immediate refusal (%s); %s",
			       name, p->what, PROBE_REFUSAL_MS, want, fix_firewall);
	if (p->kind == PROBE_UDP_SEND && o->err == EPERM && !o->icmp)
		return cs_fail(err, CS_EXIT_OSERR,
			       "the egress firewall drops silently or is not the managed one: %s (%s) was dropped (EPERM) "
			       "without the ICMP admin-prohibited that the managed firewall sends back; %s",
			       name, p->what, fix_firewall);
	if (p->kind == PROBE_UDP_SEND && o->err == EPERM)
		return cs_fail(err, CS_EXIT_OSERR,
			       "the egress firewall is not the managed one: %s (%s) was refused with ICMP%s type %u code %u, "
			       "not the admin-prohibited that the managed firewall sends back; %s",
			       name, p->what, p->ipv6 ? "v6" : "", (unsigned)o->icmp_type, (unsigned)o->icmp_code, fix_firewall);
	return cs_fail(err, CS_EXIT_OSERR,
		       "the egress firewall is missing or not the managed one: %s (%s) answered %s, not the refusal "
		       "the managed firewall gives (%s); %s",
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
			return egress_probe_failed(&probes[i], &o, err);
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
