/* The --verify-only self-check's pure parts: which probes the managed
 * profile runs, and which outcomes count as "what the ruleset gives".  The
 * real packets are tests/netns/test_verify_only.sh's. */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <time.h>
#include <linux/errqueue.h>  /* after time.h: it uses struct timespec */

#include "netfilter/egress_probe.h"
#include "check.h"

static struct probe_outcome done(void) { return (struct probe_outcome){ .done = true }; }
static struct probe_outcome timeout(void) { return (struct probe_outcome){ .timeout = true }; }
static struct probe_outcome fail(int e) { return (struct probe_outcome){ .err = e }; }
/* EPERM at send, then this ICMP on the error queue. */
static struct probe_outcome icmp(uint8_t origin, uint8_t type, uint8_t code)
{
	return (struct probe_outcome){ .err = EPERM, .icmp = true, .icmp_origin = origin, .icmp_type = type, .icmp_code = code };
}

static bool has(const struct egress_probe *p, size_t n, const char *name, enum probe_expect expect)
{
	char got[80];

	for (size_t i = 0; i < n; i++) {
		egress_probe_name(&p[i], got, sizeof(got));
		if (strcmp(got, name) == 0 && p[i].expect == expect)
			return true;
	}
	return false;
}

static void test_probe_list(void)
{
	struct egress_probe p[PROBE_MAX];
	struct probe_plan plan = { .gateway = 0xc000020au, .port = 8080,
				   .nameservers = { 0x0a600000u | 10, 0xc0000201u, 0xc0000202u }, .n_nameservers = 3,
				   .nameservers6 = { { 0xfd, 0, [15] = 0x53 } }, .n_nameservers6 = 1,
				   .neighbour = 0xc00002feu,
				   .providers = { { 0x8c527101u, 443 }, { 0x8c527101u, 22 } }, .n_providers = 2 };
	size_t n = egress_probes_managed(&plan, p);
	char name[80];
	size_t open = 0, v6 = 0, dns = 0;

	CHECK(n <= PROBE_MAX, "%zu probes", n);
	CHECK(p[n - 1].expect == PROBE_EXPECT_OPEN, "the gateway tuple comes last");
	egress_probe_name(&p[n - 1], name, sizeof(name));
	CHECK_STR(name, "tcp 192.0.2.10:8080");
	egress_probe_name(&p[0], name, sizeof(name));
	CHECK_STR(name, "udp 169.254.169.254:80");
	for (size_t i = 0; i < n; i++) {
		open += p[i].expect == PROBE_EXPECT_OPEN;
		v6 += p[i].ipv6;
		dns += p[i].port == 53;
		if (p[i].expect == PROBE_EXPECT_REFUSED && !p[i].ipv6)
			CHECK(!(memcmp(p[i].addr, "\xc0\x00\x02\x0a", 4) == 0 && p[i].port == 8080),
			      "probe %zu expects the gateway tuple refused", i);
	}
	CHECK(open == 1, "%zu probes expect a connection", open);
	CHECK(v6 == 3, "%zu IPv6 probes (TCP, UDP, the IPv6 nameserver)", v6);
	CHECK(dns == 7, "%zu DNS probes (UDP to gateway + 3 nameservers + the IPv6 one, TCP to the first, UDP over IPv6)", dns);
	/* the never-routed documentation address, on several ports, both protocols */
	CHECK(has(p, n, "tcp 203.0.113.1:8080", PROBE_EXPECT_REFUSED) && has(p, n, "tcp 203.0.113.1:443", PROBE_EXPECT_REFUSED) &&
	      has(p, n, "tcp 203.0.113.1:80", PROBE_EXPECT_REFUSED), "TCP to 203.0.113.1 on the gateway's port, 443 and 80");
	CHECK(has(p, n, "udp 203.0.113.1:8080", PROBE_EXPECT_REFUSED) && has(p, n, "udp 203.0.113.1:443", PROBE_EXPECT_REFUSED) &&
	      has(p, n, "udp 203.0.113.1:123", PROBE_EXPECT_REFUSED), "UDP to 203.0.113.1 on the gateway's port, 443 and 123");
	CHECK(has(p, n, "tcp 192.0.2.254:8080", PROBE_EXPECT_REFUSED) && has(p, n, "udp 192.0.2.254:8080", PROBE_EXPECT_REFUSED),
	      "the pod subnet's neighbour on the gateway's port, TCP and UDP");
	CHECK(has(p, n, "udp [fd00::53]:53", PROBE_EXPECT_REFUSED), "DNS to the IPv6 nameserver");
	CHECK(has(p, n, "tcp 140.82.113.1:443", PROBE_EXPECT_REFUSED) && has(p, n, "tcp 140.82.113.1:22", PROBE_EXPECT_REFUSED),
	      "the interactive profile's provider destinations");
	CHECK(has(p, n, "tcp 192.0.2.10:8081", PROBE_EXPECT_REFUSED), "the gateway's address on another port");
	/* The other port never wraps to 0; the gateway's own port is not repeated. */
	plan = (struct probe_plan){ .gateway = 0xc000020au, .port = 65535 };
	n = egress_probes_managed(&plan, p);
	CHECK(has(p, n, "tcp 192.0.2.10:65534", PROBE_EXPECT_REFUSED), "another port below 65535");
	CHECK(has(p, n, "tcp 192.0.2.10:53", PROBE_EXPECT_REFUSED), "no nameserver: DNS over TCP at the gateway's address");
	plan = (struct probe_plan){ .gateway = 0xcb007101u, .port = 443 };
	n = egress_probes_managed(&plan, p);
	CHECK(!has(p, n, "tcp 203.0.113.1:443", PROBE_EXPECT_REFUSED) && has(p, n, "tcp 203.0.113.2:443", PROBE_EXPECT_REFUSED),
	      "a gateway at the documentation address: the next one is probed instead");
	CHECK(has(p, n, "tcp 203.0.113.2:80", PROBE_EXPECT_REFUSED) && has(p, n, "tcp 203.0.113.2:22", PROBE_EXPECT_REFUSED),
	      "... and the port list skips the gateway's");
}

static void test_neighbour(void)
{
	uint32_t own[] = { 0xc00002feu };

	CHECK(egress_probe_neighbour(0xc0000200u, 24, NULL, 0, 0xc0000201u) == 0xc00002feu, "192.0.2.254 in a /24");
	CHECK(egress_probe_neighbour(0xc0000200u, 24, own, 1, 0xc00002fdu) == 0xc00002fcu, "not the pod's own, nor the gateway");
	CHECK(egress_probe_neighbour(0xc0000200u, 30, NULL, 0, 0) == 0xc0000202u, "a /30 has two hosts");
	CHECK(egress_probe_neighbour(0xc0000202u, 31, NULL, 0, 0) == 0 && egress_probe_neighbour(0xc0000202u, 32, NULL, 0, 0) == 0,
	      "a /31 or /32 (Calico's pods) has none");
	own[0] = 0xc0000202u;
	CHECK(egress_probe_neighbour(0xc0000200u, 30, own, 1, 0xc0000201u) == 0, "a /30 with the pod and the gateway in it has none");
}

static void test_outcomes(void)
{
	struct egress_probe tcp4 = { .kind = PROBE_TCP_CONNECT, .expect = PROBE_EXPECT_REFUSED };
	struct egress_probe udp4 = { .kind = PROBE_UDP_SEND, .expect = PROBE_EXPECT_REFUSED };
	struct egress_probe tcp6 = { .kind = PROBE_TCP_CONNECT, .expect = PROBE_EXPECT_REFUSED, .ipv6 = true };
	struct egress_probe udp6 = { .kind = PROBE_UDP_SEND, .expect = PROBE_EXPECT_REFUSED, .ipv6 = true };
	struct egress_probe gw = { .kind = PROBE_TCP_CONNECT, .expect = PROBE_EXPECT_OPEN };
	struct probe_outcome o;
	struct cs_error err;

	/* The refusals the managed ruleset gives. */
	o = fail(ECONNREFUSED); CHECK(egress_probe_passed(&tcp4, &o), "tcp reset");
	o = icmp(SO_EE_ORIGIN_ICMP, 3, 13); CHECK(egress_probe_passed(&udp4, &o), "UDP: EPERM, then ICMP admin-prohibited");
	o = fail(ECONNREFUSED); CHECK(egress_probe_passed(&tcp6, &o), "tcp reset, IPv6");
	o = icmp(SO_EE_ORIGIN_ICMP6, 1, 1); CHECK(egress_probe_passed(&udp6, &o), "UDP: EPERM, then ICMPv6 admin-prohibited");
	o = fail(ENETUNREACH); CHECK(egress_probe_passed(&tcp6, &o), "no IPv6 route");
	o = fail(EAFNOSUPPORT); CHECK(egress_probe_passed(&udp6, &o), "no IPv6 at all");
	o = done(); CHECK(egress_probe_passed(&gw, &o), "the gateway connects");

	/* Anything else fails closed, with a line naming what answered wrongly. */
	o = fail(EPERM); CHECK(!egress_probe_passed(&udp4, &o), "a bare drop (EPERM, no ICMP): a generic table");
	CHECK(egress_probe_failed(&udp4, &o, &err) == -1 && err.status == CS_EXIT_OSERR &&
	      strstr(err.msg, "without the ICMP admin-prohibited") && strstr(err.msg, "drops silently"), "... its line says so: %s", err.msg);
	o = icmp(SO_EE_ORIGIN_ICMP, 3, 3); CHECK(!egress_probe_passed(&udp4, &o), "ICMP port unreachable is not the ruleset's");
	CHECK(egress_probe_failed(&udp4, &o, &err) == -1 && strstr(err.msg, "type 3 code 3"), "... its line names it: %s", err.msg);
	o = icmp(SO_EE_ORIGIN_ICMP6, 3, 13); CHECK(!egress_probe_passed(&udp6, &o), "IPv4's ICMP on an IPv6 probe");
	o = icmp(SO_EE_ORIGIN_ICMP, 3, 13); CHECK(!egress_probe_passed(&udp6, &o), "an ICMP of the other family");
	o = fail(EHOSTUNREACH); CHECK(!egress_probe_passed(&tcp4, &o), "TCP answered with ICMP, not the ruleset's reset");
	CHECK(egress_probe_failed(&tcp4, &o, &err) == -1 && strstr(err.msg, "EHOSTUNREACH") && strstr(err.msg, "TCP reset"),
	      "... its line names both: %s", err.msg);
	o = fail(EACCES); CHECK(!egress_probe_passed(&tcp6, &o), "IPv6 TCP answered with ICMPv6, not the reset");
	o = done(); CHECK(!egress_probe_passed(&tcp4, &o), "a connection is not a refusal");
	CHECK(egress_probe_failed(&tcp4, &o, &err) == -1 && strstr(err.msg, "got through"), "... it got through: %s", err.msg);
	o = done(); CHECK(!egress_probe_passed(&udp4, &o), "a sent datagram is not a refusal");
	o = timeout(); CHECK(!egress_probe_passed(&tcp4, &o), "a timeout is not a refusal");
	o = timeout(); CHECK(!egress_probe_passed(&tcp6, &o), "a timeout is not a refusal, IPv6");
	o = fail(ECONNREFUSED); CHECK(!egress_probe_passed(&udp4, &o), "port unreachable from a real host is not EPERM");
	o = fail(ENETUNREACH); CHECK(!egress_probe_passed(&tcp4, &o), "no IPv4 route is not this firewall");
	o = fail(ENETUNREACH); CHECK(!egress_probe_passed(&udp4, &o), "no IPv4 route is not this firewall (UDP)");
	o = fail(ETIMEDOUT); CHECK(!egress_probe_passed(&tcp4, &o), "ETIMEDOUT");
	o = timeout(); CHECK(!egress_probe_passed(&gw, &o), "the gateway timing out");
	o = fail(ECONNREFUSED); CHECK(!egress_probe_passed(&gw, &o), "the gateway refusing");
}

int main(void)
{
	test_probe_list();
	test_neighbour();
	test_outcomes();
	return check_done("test_egress_probe");
}
