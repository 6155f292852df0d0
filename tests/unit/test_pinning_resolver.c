/* The pinning resolver's pure stages (resolver/query.h, answer.h,
 * reply.h): the query verdict, the answer verdict on hostile answers, the
 * TTL cap, and the replies built from them, on hand-made wire messages. */
#include <stdint.h>

#include "check.h"
#include "resolver/answer.h"
#include "resolver/query.h"
#include "resolver/reply.h"

struct msg {
	uint8_t b[4096];
	size_t n;
};

static void put8(struct msg *m, unsigned v) { m->b[m->n++] = (uint8_t)v; }
static void put16(struct msg *m, unsigned v) { put8(m, v >> 8); put8(m, v & 0xff); }
static void put32(struct msg *m, uint32_t v) { put16(m, v >> 16); put16(m, v & 0xffff); }

static void put_name(struct msg *m, const char *name)
{
	while (*name) {
		const char *dot = strchr(name, '.');
		size_t l = dot ? (size_t)(dot - name) : strlen(name);

		put8(m, (unsigned)l);
		memcpy(m->b + m->n, name, l);
		m->n += l;
		name += l + (dot ? 1 : 0);
	}
	put8(m, 0);
}

/* header: id, flags, counts; then one question */
static void header(struct msg *m, unsigned id, unsigned flags, unsigned an, unsigned ar, const char *q, unsigned qtype)
{
	m->n = 0;
	put16(m, id);
	put16(m, flags);
	put16(m, 1);
	put16(m, an);
	put16(m, 0);
	put16(m, ar);
	put_name(m, q);
	put16(m, qtype);
	put16(m, DNS_C_IN);
}

static void rr_a(struct msg *m, const char *owner, uint32_t addr, uint32_t ttl)
{
	put_name(m, owner);
	put16(m, DNS_T_A);
	put16(m, DNS_C_IN);
	put32(m, ttl);
	put16(m, 4);
	put32(m, addr);
}

static void rr_cname(struct msg *m, const char *owner, const char *target, uint32_t ttl)
{
	size_t at;

	put_name(m, owner);
	put16(m, DNS_T_CNAME);
	put16(m, DNS_C_IN);
	put32(m, ttl);
	at = m->n;
	put16(m, 0);
	put_name(m, target);
	m->b[at] = (uint8_t)((m->n - at - 2) >> 8);
	m->b[at + 1] = (uint8_t)(m->n - at - 2);
}

static struct allowlist names;

static enum query_verdict judge_query(const char *name, unsigned type, struct query *q)
{
	struct msg m;

	header(&m, 0x4242, 0x0100, 0, 0, name, type);
	return query_judge(m.b, m.n, &names, q);
}

static void test_queries(void)
{
	struct query q;
	struct msg m;

	CHECK(judge_query("api.example.com", DNS_T_A, &q) == QUERY_FORWARD, "as written");
	CHECK(q.pin && strcmp(q.pin->name, "api.example.com") == 0, "as written");
	CHECK(judge_query("API.Example.COM", DNS_T_A, &q) == QUERY_FORWARD, "case is ignored");
	CHECK(judge_query("api.example.com", DNS_T_AAAA, &q) == QUERY_NODATA, "as written");
	CHECK(judge_query("api.example.com", DNS_T_HTTPS, &q) == QUERY_NODATA, "as written");
	CHECK(judge_query("api.example.com", DNS_T_SVCB, &q) == QUERY_NODATA, "as written");
	CHECK(judge_query("api.example.com", 16 /* TXT */, &q) == QUERY_REFUSED, "as written");
	CHECK(judge_query("api.example.com", 10 /* NULL */, &q) == QUERY_REFUSED, "as written");
	CHECK(judge_query("api.example.com", 255 /* ANY */, &q) == QUERY_REFUSED, "as written");
	CHECK(judge_query("x.api.example.com", DNS_T_A, &q) == QUERY_NXDOMAIN, "a subdomain is not the name");
	CHECK(judge_query("secret-data.api.example.com", 16, &q) == QUERY_NXDOMAIN, "as written");
	CHECK(judge_query("example.com", DNS_T_A, &q) == QUERY_NXDOMAIN, "nor is the parent");
	CHECK(judge_query("evil.test", DNS_T_A, &q) == QUERY_NXDOMAIN, "as written");
	/* a response is never answered; a cut-off header neither */
	header(&m, 1, 0x8100, 0, 0, "api.example.com", DNS_T_A);
	CHECK(query_judge(m.b, m.n, &names, &q) == QUERY_DROP, "as written");
	CHECK(query_judge(m.b, 11, &names, &q) == QUERY_DROP, "as written");
	/* another opcode; two questions; a cut question */
	header(&m, 1, 0x2000, 0, 0, "api.example.com", DNS_T_A);
	CHECK(query_judge(m.b, m.n, &names, &q) == QUERY_NOTIMP, "as written");
	header(&m, 1, 0x0100, 0, 0, "api.example.com", DNS_T_A);
	m.b[5] = 2;
	CHECK(query_judge(m.b, m.n, &names, &q) == QUERY_FORMERR, "as written");
	header(&m, 1, 0x0100, 0, 0, "api.example.com", DNS_T_A);
	CHECK(query_judge(m.b, m.n - 1, &names, &q) == QUERY_FORMERR, "as written");
	/* EDNS: the client's size is read */
	header(&m, 1, 0x0100, 0, 1, "api.example.com", DNS_T_A);
	put8(&m, 0);
	put16(&m, DNS_T_OPT);
	put16(&m, 1232);
	put32(&m, 0);
	put16(&m, 0);
	CHECK(query_judge(m.b, m.n, &names, &q) == QUERY_FORWARD && q.edns_size == 1232, "as written");
}

static struct answer judge(const struct msg *m, bool internal)
{
	struct answer a;

	answer_judge(m->b, m->n, 0x7777, "api.example.com", internal, &a);
	return a;
}

static void test_answers(void)
{
	struct msg m;
	struct answer a;

	header(&m, 0x7777, 0x8180, 2, 0, "api.example.com", DNS_T_A);
	rr_a(&m, "api.example.com", 0xc000020a, 300);
	rr_a(&m, "api.example.com", 0xc000020b, 60);
	a = judge(&m, false);
	CHECK(a.kind == ANSWER_PIN && a.n_addrs == 2 && a.ttl_min == 60, "kind %s", answer_kind_name(a.kind));

	/* a CNAME chain; a record off the chain is dropped */
	header(&m, 0x7777, 0x8180, 3, 0, "api.example.com", DNS_T_A);
	rr_a(&m, "other.test", 0xc6336401, 300);
	rr_cname(&m, "api.example.com", "edge.cdn.test", 30);
	rr_a(&m, "edge.cdn.test", 0xc0000214, 300);
	a = judge(&m, false);
	CHECK(a.kind == ANSWER_PIN && a.n_addrs == 1 && a.addrs[0] == 0xc0000214 && a.n_rec == 2 && a.ttl_min == 30, "as written");

	/* hostile: a CNAME to a forbidden address, metadata, loopback, private */
	header(&m, 0x7777, 0x8180, 2, 0, "api.example.com", DNS_T_A);
	rr_cname(&m, "api.example.com", "meta.test", 30);
	rr_a(&m, "meta.test", 0xa9fea9fe, 300);
	a = judge(&m, false);
	CHECK(a.kind == ANSWER_SERVFAIL && a.n_addrs == 0, "CNAME to 169.254.169.254");
	static const uint32_t bad[] = { 0xa9fea9fe, 0x7f000001, 0x00000000, 0xe0000001, 0xffffffff };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		header(&m, 0x7777, 0x8180, 2, 0, "api.example.com", DNS_T_A);
		rr_a(&m, "api.example.com", 0xc0000201, 300);
		rr_a(&m, "api.example.com", bad[i], 300);
		a = judge(&m, true);
		CHECK(a.kind == ANSWER_SERVFAIL && a.n_addrs == 0, "forbidden %08x, even for an internal name", bad[i]);
	}
	header(&m, 0x7777, 0x8180, 1, 0, "api.example.com", DNS_T_A);
	rr_a(&m, "api.example.com", 0x0a000001, 300);
	CHECK(judge(&m, false).kind == ANSWER_SERVFAIL, "10.0.0.1 for a public name");
	CHECK(judge(&m, true).kind == ANSWER_PIN, "10.0.0.1 for an internal name");
	/* 32 A records pass, 33 fail */
	header(&m, 0x7777, 0x8180, 32, 0, "api.example.com", DNS_T_A);
	for (uint32_t i = 0; i < 32; i++)
		rr_a(&m, "api.example.com", 0xc0000200 + i + 1, 300);
	CHECK(judge(&m, false).kind == ANSWER_PIN, "as written");
	rr_a(&m, "api.example.com", 0xc0000200 + 40, 300);
	m.b[7] = 33;
	CHECK(judge(&m, false).kind == ANSWER_SERVFAIL, "33 A records");
	/* truncated flag, a record cut off, a compression loop */
	header(&m, 0x7777, 0x8380, 1, 0, "api.example.com", DNS_T_A);
	rr_a(&m, "api.example.com", 0xc0000201, 300);
	CHECK(judge(&m, false).kind == ANSWER_SERVFAIL, "TC");
	header(&m, 0x7777, 0x8180, 1, 0, "api.example.com", DNS_T_A);
	rr_a(&m, "api.example.com", 0xc0000201, 300);
	m.n -= 2;
	CHECK(judge(&m, false).kind == ANSWER_SERVFAIL, "cut off");
	header(&m, 0x7777, 0x8180, 1, 0, "api.example.com", DNS_T_A);
	{
		size_t at = m.n;

		put16(&m, 0xc000 | (unsigned)at);   /* a pointer to itself */
		put16(&m, DNS_T_A);
		put16(&m, DNS_C_IN);
		put32(&m, 300);
		put16(&m, 4);
		put32(&m, 0xc0000201);
	}
	CHECK(judge(&m, false).kind == ANSWER_SERVFAIL, "compression loop");
	/* a CNAME loop */
	header(&m, 0x7777, 0x8180, 2, 0, "api.example.com", DNS_T_A);
	rr_cname(&m, "api.example.com", "b.test", 30);
	rr_cname(&m, "b.test", "api.example.com", 30);
	CHECK(judge(&m, false).kind == ANSWER_SERVFAIL, "CNAME loop");
	/* a CNAME target with a dot inside a label has no faithful text form */
	header(&m, 0x7777, 0x8180, 2, 0, "api.example.com", DNS_T_A);
	{
		size_t at;

		put_name(&m, "api.example.com");
		put16(&m, DNS_T_CNAME);
		put16(&m, DNS_C_IN);
		put32(&m, 30);
		put16(&m, 10);
		at = m.n;
		put8(&m, 3);
		memcpy(m.b + m.n, "a.b", 3);
		m.n += 3;
		put_name(&m, "test");
		CHECK(m.n - at == 10, "rdata length");
	}
	rr_a(&m, "a.b.test", 0xc0000201, 300);
	CHECK(judge(&m, false).kind == ANSWER_SERVFAIL, "a label with a dot");
	/* NXDOMAIN, NODATA, upstream errors, spoofs */
	header(&m, 0x7777, 0x8183, 0, 0, "api.example.com", DNS_T_A);
	CHECK(judge(&m, false).kind == ANSWER_NXDOMAIN, "as written");
	header(&m, 0x7777, 0x8180, 0, 0, "api.example.com", DNS_T_A);
	CHECK(judge(&m, false).kind == ANSWER_NODATA, "as written");
	header(&m, 0x7777, 0x8182, 0, 0, "api.example.com", DNS_T_A);
	CHECK(judge(&m, false).kind == ANSWER_SERVFAIL, "as written");
	header(&m, 0x7778, 0x8180, 1, 0, "api.example.com", DNS_T_A);
	rr_a(&m, "api.example.com", 0xc0000201, 300);
	CHECK(judge(&m, false).kind == ANSWER_IGNORE, "another id");
	header(&m, 0x7777, 0x8180, 1, 0, "evil.test", DNS_T_A);
	rr_a(&m, "evil.test", 0xc0000201, 300);
	CHECK(judge(&m, false).kind == ANSWER_IGNORE, "another question");
}

static void test_ttl_and_reply(void)
{
	struct msg qm, am;
	struct query q;
	struct answer a;
	uint8_t out[REPLY_MAX];
	size_t n;
	uint32_t ttl_cap = answer_ttl(UINT32_MAX, 900, 60);

	CHECK(answer_ttl(300, 900, 60) == 300, "as written");
	CHECK(answer_ttl(3600, 900, 60) == 840, "as written");
	CHECK(answer_ttl(1, 3, 1) == 1 && answer_ttl(5, 3, 1) == 2, "as written");
	CHECK(ttl_cap == 840, "as written");

	header(&qm, 0x1234, 0x0100, 0, 0, "Api.Example.com", DNS_T_A);
	CHECK(query_judge(qm.b, qm.n, &names, &q) == QUERY_FORWARD, "as written");
	header(&am, 0x7777, 0x8180, 2, 0, "api.example.com", DNS_T_A);
	rr_cname(&am, "api.example.com", "edge.cdn.test", 3600);
	rr_a(&am, "edge.cdn.test", 0xc0000214, 7200);
	answer_judge(am.b, am.n, 0x7777, "api.example.com", false, &a);
	n = reply_build(out, 512, qm.b, &q, DNS_RCODE_NOERROR, &a, ttl_cap);
	CHECK(n > qm.n, "a reply with records");
	/* what the client gets reads back as the same chain, TTLs capped */
	{
		struct answer back;

		out[0] = 0x77;
		out[1] = 0x77;
		answer_judge(out, n, 0x7777, "api.example.com", false, &back);
		CHECK(back.kind == ANSWER_PIN && back.n_addrs == 1 && back.addrs[0] == 0xc0000214 && back.n_rec == 2, "as written");
		CHECK(back.ttl_min == 840, "ttl %u", back.ttl_min);
		CHECK(memcmp(out + 12, qm.b + 12, qm.n - 12) == 0, "the question as the client wrote it");
	}
	/* an error reply: the question, the rcode, nothing else */
	n = reply_build(out, 512, qm.b, &q, DNS_RCODE_NXDOMAIN, NULL, ttl_cap);
	CHECK(n == qm.n && (out[3] & 0x0f) == DNS_RCODE_NXDOMAIN && out[0] == 0x12 && out[1] == 0x34 && (out[2] & 0x80), "as written");
	/* 32 records do not fit 512 bytes: an empty truncated reply */
	header(&am, 0x7777, 0x8180, 32, 0, "api.example.com", DNS_T_A);
	for (uint32_t i = 0; i < 32; i++)
		rr_a(&am, "api.example.com", 0xc0000200 + i + 1, 300);
	answer_judge(am.b, am.n, 0x7777, "api.example.com", false, &a);
	n = reply_build(out, 512, qm.b, &q, DNS_RCODE_NOERROR, &a, ttl_cap);
	CHECK(n == qm.n && (out[2] & 0x02) && out[7] == 0, "TC, no records");
	n = reply_build(out, REPLY_MAX, qm.b, &q, DNS_RCODE_NOERROR, &a, ttl_cap);
	CHECK(n > 512 && out[7] == 32, "over TCP all 32");
	/* the upstream query: the name, A, and EDNS */
	n = reply_upstream_query(out, 0x5555, "api.example.com");
	CHECK(n == 12 + 17 + 4 + 11 && out[11] == 1, "as written");
}

int main(void)
{
	struct cs_error err;

	CHECK(allowlist_add(&names, "api.example.com:443", false, &err) == 0, "as written");
	CHECK(allowlist_add(&names, "API.example.com:80", false, &err) == 0 && names.n == 1 && names.v[0].n_ports == 2, "as written");
	CHECK(allowlist_add(&names, "api.example.com", false, &err) != 0 && err.status == CS_EXIT_CONFIG, "as written");
	CHECK(allowlist_add(&names, "bad name:443", false, &err) != 0, "as written");
	CHECK(allowlist_add(&names, "1.2.3.4:443", false, &err) != 0, "an address is not a name");
	test_queries();
	test_answers();
	test_ttl_and_reply();
	allowlist_free(&names);
	return check_done("test_pinning_resolver");
}
