/* The --verify-only self-check's pure parts: which probes the managed
 * profile runs, and which outcomes count as "what the ruleset gives".  The
 * real packets are tests/netns/test_verify_only.sh's. */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include "netfilter/egress_probe.h"
#include "check.h"

static struct probe_outcome done(void) { return (struct probe_outcome){ .done = true }; }
static struct probe_outcome timeout(void) { return (struct probe_outcome){ .timeout = true }; }
static struct probe_outcome fail(int e) { return (struct probe_outcome){ .err = e }; }

static void test_probe_list(void)
{
	struct egress_probe p[PROBE_MAX];
	uint32_t ns[3] = { 0x0a600000u | 10, 0xc0000201u, 0xc0000202u };  /* 10.96.0.10, 192.0.2.1, .2 */
	size_t n = egress_probes_managed(0xc000020au, 8080, ns, 3, p);
	char name[80];
	size_t open = 0, udp = 0, v6 = 0, dns = 0;

	CHECK(n <= PROBE_MAX, "%zu probes", n);
	CHECK(p[n - 1].expect == PROBE_EXPECT_OPEN, "the gateway tuple comes last");
	egress_probe_name(&p[n - 1], name, sizeof(name));
	CHECK_STR(name, "tcp 192.0.2.10:8080");
	egress_probe_name(&p[0], name, sizeof(name));
	CHECK_STR(name, "udp 169.254.169.254:80");
	for (size_t i = 0; i < n; i++) {
		open += p[i].expect == PROBE_EXPECT_OPEN;
		udp += p[i].kind == PROBE_UDP_SEND;
		v6 += p[i].ipv6;
		dns += p[i].port == 53;
		if (p[i].expect == PROBE_EXPECT_REFUSED && !p[i].ipv6)
			CHECK(!(memcmp(p[i].addr, "\xc0\x00\x02\x0a", 4) == 0 && p[i].port == 8080),
			      "probe %zu expects the gateway tuple refused", i);
	}
	CHECK(open == 1, "%zu probes expect a connection", open);
	CHECK(v6 == 2, "%zu IPv6 probes", v6);
	CHECK(udp >= 5, "%zu UDP probes (metadata, DNS at the gateway and each nameserver, IPv6)", udp);
	CHECK(dns == 6, "%zu DNS probes (UDP to gateway + 3 nameservers, TCP to the first, UDP over IPv6)", dns);
	egress_probe_name(&p[2], name, sizeof(name));
	CHECK_STR(name, "tcp 192.0.2.10:8081");
	/* The other port never wraps to 0. */
	n = egress_probes_managed(0xc000020au, 65535, NULL, 0, p);
	egress_probe_name(&p[2], name, sizeof(name));
	CHECK_STR(name, "tcp 192.0.2.10:65534");
	egress_probe_name(&p[n - 4], name, sizeof(name));
	CHECK_STR(name, "tcp 192.0.2.10:53");  /* no nameserver: DNS over TCP at the gateway's address */
	egress_probe_name(&p[n - 2], name, sizeof(name));
	CHECK_STR(name, "udp [2001:db8::1]:53");
}

static void test_outcomes(void)
{
	struct egress_probe tcp4 = { .kind = PROBE_TCP_CONNECT, .expect = PROBE_EXPECT_REFUSED };
	struct egress_probe udp4 = { .kind = PROBE_UDP_SEND, .expect = PROBE_EXPECT_REFUSED };
	struct egress_probe tcp6 = { .kind = PROBE_TCP_CONNECT, .expect = PROBE_EXPECT_REFUSED, .ipv6 = true };
	struct egress_probe udp6 = { .kind = PROBE_UDP_SEND, .expect = PROBE_EXPECT_REFUSED, .ipv6 = true };
	struct egress_probe gw = { .kind = PROBE_TCP_CONNECT, .expect = PROBE_EXPECT_OPEN };
	struct probe_outcome o;

	/* The refusals this ruleset gives. */
	o = fail(ECONNREFUSED); CHECK(egress_probe_passed(&tcp4, &o), "tcp reset");
	o = fail(EHOSTUNREACH); CHECK(egress_probe_passed(&tcp4, &o), "ICMP admin-prohibited");
	o = fail(EPERM); CHECK(egress_probe_passed(&udp4, &o), "UDP dropped in the output hook");
	o = fail(ECONNREFUSED); CHECK(egress_probe_passed(&tcp6, &o), "tcp reset, IPv6");
	o = fail(EACCES); CHECK(egress_probe_passed(&tcp6, &o), "ICMPv6 admin-prohibited");
	o = fail(EPERM); CHECK(egress_probe_passed(&udp6, &o), "UDP dropped, IPv6");
	o = fail(ENETUNREACH); CHECK(egress_probe_passed(&tcp6, &o), "no IPv6 route");
	o = fail(EAFNOSUPPORT); CHECK(egress_probe_passed(&udp6, &o), "no IPv6 at all");
	o = done(); CHECK(egress_probe_passed(&gw, &o), "the gateway connects");

	/* Anything else fails closed. */
	o = done(); CHECK(!egress_probe_passed(&tcp4, &o), "a connection is not a refusal");
	o = done(); CHECK(!egress_probe_passed(&udp4, &o), "a sent datagram is not a refusal");
	o = timeout(); CHECK(!egress_probe_passed(&tcp4, &o), "a timeout is not a refusal");
	o = timeout(); CHECK(!egress_probe_passed(&tcp6, &o), "a timeout is not a refusal, IPv6");
	o = fail(ECONNREFUSED); CHECK(!egress_probe_passed(&udp4, &o), "port unreachable from a real host is not EPERM");
	o = fail(ENETUNREACH); CHECK(!egress_probe_passed(&tcp4, &o), "no IPv4 route is not this firewall");
	o = fail(ENETUNREACH); CHECK(!egress_probe_passed(&udp4, &o), "no IPv4 route is not this firewall (UDP)");
	o = fail(EACCES); CHECK(!egress_probe_passed(&tcp4, &o), "EACCES is IPv6's admin-prohibited only");
	o = fail(EHOSTUNREACH); CHECK(!egress_probe_passed(&tcp6, &o), "EHOSTUNREACH is IPv4's only");
	o = fail(ETIMEDOUT); CHECK(!egress_probe_passed(&tcp4, &o), "ETIMEDOUT");
	o = timeout(); CHECK(!egress_probe_passed(&gw, &o), "the gateway timing out");
	o = fail(ECONNREFUSED); CHECK(!egress_probe_passed(&gw, &o), "the gateway refusing");
}

int main(void)
{
	test_probe_list();
	test_outcomes();
	return check_done("test_egress_probe");
}
