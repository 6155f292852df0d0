/* The block log's pure parts: the NFLOG message parser (fed the kind of
 * packets the command can craft, truncated and malformed ones included)
 * and the line writer's deduplication and rate limit. */
#include <arpa/inet.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_log.h>
#include <netinet/in.h>
#include <stdlib.h>

#include "entrypoint/blocked_lines.h"
#include "netfilter/nflog.h"
#include "check.h"

static size_t ipv4_udp(uint8_t *p, const char *dst, uint16_t dport)
{
	memset(p, 0, 28);
	p[0] = 0x45;
	p[9] = IPPROTO_UDP;
	inet_pton(AF_INET, dst, p + 16);
	p[20 + 2] = (uint8_t)(dport >> 8);
	p[20 + 3] = (uint8_t)dport;
	return 28;
}

/* An IPv6 packet with a hop-by-hop and a destination options header before TCP. */
static size_t ipv6_tcp_ext(uint8_t *p, const char *dst, uint16_t dport)
{
	memset(p, 0, 40 + 8 + 16 + 20);
	p[0] = 0x60;
	p[6] = IPPROTO_HOPOPTS;
	inet_pton(AF_INET6, dst, p + 24);
	p[40] = IPPROTO_DSTOPTS;   /* next */
	p[41] = 0;                 /* 8 bytes */
	p[48] = IPPROTO_TCP;
	p[49] = 1;                 /* 16 bytes */
	p[64 + 2] = (uint8_t)(dport >> 8);
	p[64 + 3] = (uint8_t)dport;
	return 84;
}

static void test_packets(void)
{
	uint8_t p[128];
	struct nflog_event ev;
	char a[INET6_ADDRSTRLEN];
	size_t n;

	n = ipv4_udp(p, "198.51.100.2", 9999);
	CHECK(nflog_parse_packet(p, n, &ev) && ev.family == 4 && ev.l4proto == IPPROTO_UDP &&
	      ev.has_port && ev.dport == 9999, "IPv4 UDP");
	CHECK(strcmp(inet_ntop(AF_INET, ev.daddr, a, sizeof(a)), "198.51.100.2") == 0, "IPv4 address");
	CHECK(nflog_parse_packet(p, 22, &ev) && !ev.has_port, "ports cut off by the snap length: no port");
	CHECK(!nflog_parse_packet(p, 19, &ev), "shorter than an IPv4 header");
	p[0] = 0x4f;  /* ihl 60 > len */
	CHECK(!nflog_parse_packet(p, n, &ev), "header length beyond the packet");
	p[0] = 0x44;
	CHECK(!nflog_parse_packet(p, n, &ev), "header length below 20");
	n = ipv4_udp(p, "192.0.2.1", 53);
	p[7] = 1;  /* a later fragment: its bytes are not a transport header */
	CHECK(nflog_parse_packet(p, n, &ev) && !ev.has_port, "a non-first fragment has no port");

	n = ipv6_tcp_ext(p, "2001:db8:1::1", 8080);
	CHECK(nflog_parse_packet(p, n, &ev) && ev.family == 6 && ev.l4proto == IPPROTO_TCP &&
	      ev.has_port && ev.dport == 8080, "IPv6 TCP behind two extension headers");
	CHECK(strcmp(inet_ntop(AF_INET6, ev.daddr, a, sizeof(a)), "2001:db8:1::1") == 0, "IPv6 address");
	CHECK(nflog_parse_packet(p, 60, &ev) && !ev.has_port, "an extension header cut off: no port");
	CHECK(!nflog_parse_packet(p, 39, &ev), "shorter than an IPv6 header");
	p[49] = 255;  /* options claim 2048 bytes */
	CHECK(nflog_parse_packet(p, n, &ev) && !ev.has_port, "an extension header longer than the packet");
	memset(p, 0, sizeof(p));
	p[0] = 0x60;
	for (int i = 0; i < 12; i++)  /* a chain of extension headers longer than the walk */
		p[i == 0 ? 6 : 40 + (i - 1) * 8] = IPPROTO_DSTOPTS;
	CHECK(nflog_parse_packet(p, sizeof(p), &ev) && !ev.has_port, "endless extension headers stop");
	p[0] = 0x50;
	CHECK(!nflog_parse_packet(p, sizeof(p), &ev), "not IP");
	CHECK(!nflog_parse_packet(p, 0, &ev), "empty");
}

struct collect {
	struct nflog_event ev[8];
	size_t n;
};

static void collect_cb(const struct nflog_event *ev, void *ctx)
{
	struct collect *c = ctx;

	if (c->n < 8)
		c->ev[c->n++] = *ev;
}

/* A netlink message as nfnetlink_log sends it: nfgenmsg, a packet header,
 * the uid, the payload. */
static size_t message(uint8_t *buf, const uint8_t *pkt, size_t len, bool uid)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nfgenmsg *g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	struct nfulnl_msg_packet_hdr ph = { .hw_protocol = htons(0x0800), .hook = 3 };

	nlh->nlmsg_type = (NFNL_SUBSYS_ULOG << 8) | NFULNL_MSG_PACKET;
	g->nfgen_family = AF_INET;
	mnl_attr_put(nlh, NFULA_PACKET_HDR, sizeof(ph), &ph);
	if (uid)
		mnl_attr_put_u32(nlh, NFULA_UID, htonl(1000));
	mnl_attr_put(nlh, NFULA_PAYLOAD, len, pkt);
	return nlh->nlmsg_len;
}

static void test_messages(void)
{
	static uint8_t buf[4096] __attribute__((aligned(8)));
	uint8_t pkt[64];
	struct collect c = { .n = 0 };
	size_t n, len = ipv4_udp(pkt, "192.0.2.1", 53);

	n = message(buf, pkt, len, true);
	n += message(buf + n, pkt, len, false);
	CHECK(nflog_parse(buf, n, collect_cb, &c) == 2 && c.n == 2, "two messages in one datagram");
	CHECK(c.ev[0].has_uid && c.ev[0].uid == 1000 && c.ev[0].dport == 53, "uid and port");
	CHECK(!c.ev[1].has_uid, "no uid attribute: none");
	c.n = 0;
	CHECK(nflog_parse(buf, n - 3, collect_cb, &c) == 1, "a truncated second message is skipped");
	((struct nlmsghdr *)buf)->nlmsg_len = 4000;
	c.n = 0;
	CHECK(nflog_parse(buf, n, collect_cb, &c) == 0, "a length beyond the datagram stops the walk");
	n = message(buf, pkt, len, true);
	n += message(buf + n, pkt, len, false);
	((struct nlmsghdr *)buf)->nlmsg_type = NLMSG_ERROR;
	c.n = 0;
	CHECK(nflog_parse(buf, n, collect_cb, &c) == 1, "another message type is skipped");
	/* An unaligned last message whose payload attribute claims the padding
	 * past nlmsg_len: the attribute is refused, nothing is read beyond the
	 * datagram (an exactly sized heap copy: the sanitize build's ASan sees
	 * any such read). */
	{
		size_t m = message(buf, pkt, 20, false);
		uint8_t *copy = malloc(m - 3);

		CHECK(copy != NULL, "memory for the unaligned message");
		((struct nlmsghdr *)buf)->nlmsg_len = (uint32_t)(m - 3);
		memcpy(copy, buf, m - 3);
		c.n = 0;
		CHECK(nflog_parse(copy, m - 3, collect_cb, &c) == 0 && c.n == 0,
		      "an attribute reaching past an unaligned message's length is refused");
		free(copy);
	}
	/* random garbage never crashes, and never yields more events than
	 * whole messages fit: an event needs a header, nfgenmsg, an attribute
	 * header and at least an IPv4 header, 44 bytes */
	srand(14);
	for (int round = 0; round < 20000; round++) {
		size_t m = (size_t)rand() % 600, got;
		bool sane = true;

		for (size_t i = 0; i < m; i++)
			buf[i] = (uint8_t)rand();
		if (round % 2) {
			n = message(buf, buf + 700, (size_t)rand() % 120, round % 4 == 1);
			m = n;
		}
		c.n = 0;
		got = nflog_parse(buf, m, collect_cb, &c);
		for (size_t i = 0; i < c.n; i++)
			sane = sane && (c.ev[i].family == 4 || c.ev[i].family == 6);
		if (got * 44 > m || (c.n < 8 && got != c.n) || !sane) {
			CHECK(0, "fuzzed messages: no more events than whole messages, each well formed");
			break;
		}
	}
}

static struct nflog_event flow(uint8_t a, uint16_t port)
{
	struct nflog_event ev;
	uint8_t p[32];

	ipv4_udp(p, "192.0.2.1", port);
	p[19] = a;
	nflog_parse_packet(p, 28, &ev);
	ev.has_uid = true;
	ev.uid = 1000;
	return ev;
}

static void test_lines(void)
{
	static struct blocked_lines b;
	char line[BLOCKED_LINE_MAX];
	struct nflog_event ev = flow(1, 9999);
	int shown = 0;

	blocked_lines_init(&b);
	CHECK(blocked_lines_add(&b, &ev, 1000, 0, line), "the first packet of a flow gets a line");
	CHECK_STR(line, "1970-01-01T00:00:00Z refused udp to 192.0.2.1 port 9999 uid 1000");
	for (int i = 0; i < 1000; i++)
		shown += blocked_lines_add(&b, &ev, 1000 + i, 0, line);
	CHECK(shown == 0, "its repeats within the window get none (%d)", shown);
	CHECK(blocked_lines_add(&b, &ev, 1000 + BLOCKED_REPEAT_MS, 60, line), "after the window it gets a line again");
	CHECK(strstr(line, "(1000 more since its last line)") != NULL, "which counts the repeats: %s", line);

	/* many distinct flows at once: the burst, then the rate */
	blocked_lines_init(&b);
	shown = 0;
	for (int i = 0; i < 1000; i++) {
		struct nflog_event e = flow((uint8_t)i, (uint16_t)(1000 + i));

		shown += blocked_lines_add(&b, &e, 5000, 0, line);
	}
	CHECK(shown == BLOCKED_LINES_BURST, "one instant: the burst only (%d)", shown);
	{
		struct nflog_event e = flow(7, 7);

		CHECK(blocked_lines_add(&b, &e, 5000 + 1000 / BLOCKED_LINES_PER_S, 0, line), "a token later: a line");
		CHECK(strstr(line, "other lines not shown: rate limit") != NULL, "saying how many were not shown: %s", line);
	}
	/* the table stays bounded: 100000 flows, and a known one is still found
	 * or at worst forgotten, never a crash or a second table */
	shown = 0;
	for (int i = 0; i < 100000; i++) {
		struct nflog_event e = flow((uint8_t)i, (uint16_t)i);

		shown += blocked_lines_add(&b, &e, 10000 + i, 0, line);
	}
	CHECK(shown > 0 && shown <= 100000 / (1000 / BLOCKED_LINES_PER_S) + BLOCKED_LINES_BURST + 1,
	      "100000 flows in 100 s: at most the rate (%d lines)", shown);
	{
		struct nflog_event v6;
		uint8_t p[84];

		ipv6_tcp_ext(p, "2001:db8:1::1", 8080);
		nflog_parse_packet(p, sizeof(p), &v6);
		CHECK(blocked_lines_add(&b, &v6, 10000000, 0, line), "IPv6 line");
		CHECK(strstr(line, "refused tcp to 2001:db8:1::1 port 8080 uid ?") != NULL, "%s", line);
	}
}

int main(void)
{
	test_packets();
	test_messages();
	test_lines();
	return check_done("test_block_log");
}
