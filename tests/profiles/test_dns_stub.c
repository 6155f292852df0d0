/* The resolver's fast path, without a network: the A query's bytes, what a
 * crafted answer yields (or does not: every malformed, foreign or negative
 * answer is "no answer", so glibc decides), and the gate that keeps glibc's
 * way wherever the first question would differ (nsswitch.conf, /etc/hosts,
 * resolv.conf options, ndots, the environment). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profiles/dns_stub.h"
#include "profiles/dns_wire.h"
#include "check.h"

/* An answer message under construction. */
struct msg {
	uint8_t b[1024];
	size_t n;
};

static void put(struct msg *m, const void *p, size_t n)
{
	memcpy(m->b + m->n, p, n);
	m->n += n;
}

static void put16(struct msg *m, uint16_t v)
{
	uint8_t b[2] = { (uint8_t)(v >> 8), (uint8_t)v };

	put(m, b, 2);
}

static void put_name(struct msg *m, const char *name)
{
	while (*name) {
		size_t l = strcspn(name, ".");
		uint8_t lb = (uint8_t)l;

		put(m, &lb, 1);
		put(m, name, l);
		name += l + (name[l] == '.');
	}
	put(m, "", 1);
}

/* Header and question: id 0x1234, flags, one question, ancount answers. */
static void start(struct msg *m, uint16_t flags, const char *qname, uint16_t qtype, uint16_t ancount)
{
	m->n = 0;
	put16(m, 0x1234);
	put16(m, flags);
	put16(m, 1);
	put16(m, ancount);
	put16(m, 0);
	put16(m, 0);
	put_name(m, qname);
	put16(m, qtype);
	put16(m, 1);
}

/* A record: owner as a pointer to offset ptr (0: the name given), type, data. */
static void rr(struct msg *m, uint16_t ptr, const char *owner, uint16_t type, const void *data, uint16_t len)
{
	if (ptr)
		put16(m, (uint16_t)(0xc000 | ptr));
	else
		put_name(m, owner);
	put16(m, type);
	put16(m, 1);
	put16(m, 0);
	put16(m, 60);
	put16(m, len);
	put(m, data, len);
}

static const uint8_t ADDR1[4] = { 198, 51, 100, 10 }, ADDR2[4] = { 198, 51, 100, 11 };
#define RESP 0x8180  /* QR, RD, RA, NOERROR */

static bool parse(const struct msg *m, const char *name, uint32_t *addrs, size_t *n)
{
	return dns_answer_addrs(m->b, m->n, 0x1234, name, addrs, 8, n);
}

static void test_query(void)
{
	uint8_t q[DNS_QUERY_MAX];
	static const uint8_t want[] = { 0xab, 0xcd, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0,
					3, 'a', 'p', 'i', 6, 'g', 'i', 't', 'h', 'u', 'b', 3, 'c', 'o', 'm', 0,
					0, 1, 0, 1 };
	char longest[DNS_NAME_MAX + 2];

	CHECK(dns_query_build(q, 0xabcd, "api.github.com") == sizeof(want) && memcmp(q, want, sizeof(want)) == 0,
	      "the A query for api.github.com, byte for byte");
	CHECK(dns_query_build(q, 1, "") == 0, "an empty name is glibc's");
	CHECK(dns_query_build(q, 1, "a..b") == 0, "an empty label is glibc's");
	CHECK(dns_query_build(q, 1, "example.com.") == 0, "a final dot is glibc's");
	CHECK(dns_query_build(q, 1, ".example.com") == 0, "a leading dot is glibc's");
	CHECK(dns_query_build(q, 1, "ex ample.com") == 0 && dns_query_build(q, 1, "ex\\.com") == 0,
	      "a space or an escape is glibc's");
	memset(longest, 'a', 63);
	strcpy(longest + 63, ".b");
	CHECK(dns_query_build(q, 1, longest) > 0, "a 63-byte label");
	memset(longest, 'a', 64);
	strcpy(longest + 64, ".b");
	CHECK(dns_query_build(q, 1, longest) == 0, "a 64-byte label is glibc's");
	for (size_t i = 0; i < DNS_NAME_MAX; i++)
		longest[i] = i % 2 ? '.' : 'a';
	longest[DNS_NAME_MAX] = '\0';
	CHECK(dns_query_build(q, 1, longest) == 12 + 255 + 4, "a 253-character name fills the query");
	longest[DNS_NAME_MAX] = 'a';
	longest[DNS_NAME_MAX + 1] = '\0';
	CHECK(dns_query_build(q, 1, longest) == 0, "a 254-character name is glibc's");
}

static void test_positive(void)
{
	struct msg m;
	uint32_t a[8];
	size_t n;

	start(&m, RESP, "api.test", 1, 2);
	rr(&m, 12, NULL, 1, ADDR1, 4);
	rr(&m, 12, NULL, 1, ADDR2, 4);
	CHECK(parse(&m, "api.test", a, &n) && n == 2 && a[0] == 0xc633640a && a[1] == 0xc633640b,
	      "two A records by compression pointer");
	CHECK(parse(&m, "API.Test", a, &n) && n == 2, "names compare without case");
	start(&m, RESP, "api.test", 1, 2);
	rr(&m, 12, NULL, 1, ADDR1, 4);
	rr(&m, 12, NULL, 1, ADDR1, 4);
	CHECK(parse(&m, "api.test", a, &n) && n == 1, "a repeated address once");
	/* an A record for another name is not ours */
	start(&m, RESP, "api.test", 1, 2);
	rr(&m, 0, "evil.test", 1, ADDR1, 4);
	rr(&m, 12, NULL, 1, ADDR2, 4);
	CHECK(parse(&m, "api.test", a, &n) && n == 1 && a[0] == 0xc633640b, "an A record of another owner is ignored");
	start(&m, RESP, "api.test", 1, 1);
	rr(&m, 0, "evil.test", 1, ADDR1, 4);
	CHECK(!parse(&m, "api.test", a, &n) && n == 0, "only another owner's A record: no answer");
}

/* A CNAME record owner -> target, names written out. */
static void cname_rr(struct msg *m, const char *owner, const char *target)
{
	struct msg t = { .n = 0 };

	put_name(&t, target);
	rr(m, 0, owner, 5, t.b, (uint16_t)t.n);
}

/* One answer section as a string of records, "a>b" a CNAME from a to b,
 * "b=1" an A record of b holding ADDR1 ("=2": ADDR2), separated by spaces;
 * a, b, c stand for api.test, edge.cdn.test, c.test. */
static const char *chain_name(char c)
{
	return c == 'a' ? "api.test" : c == 'b' ? "edge.cdn.test" : "c.test";
}

static void answer_of(struct msg *m, const char *records)
{
	size_t count = (strlen(records) + 1) / 4;  /* three characters and a space each */

	start(m, RESP, "api.test", 1, (uint16_t)count);
	for (size_t i = 0; i < count; i++) {
		const char *r = records + 4 * i;

		if (r[1] == '>')
			cname_rr(m, chain_name(r[0]), chain_name(r[2]));
		else
			rr(m, 0, chain_name(r[0]), 1, r[2] == '1' ? ADDR1 : ADDR2, 4);
	}
}

/* Issue 23, item 5: the fast path takes an A record only where the chain
 * from the question's name leads to it, in order and without a loop, so it
 * never takes an address glibc's getaddrinfo would not give; where glibc
 * takes more (it follows a CNAME of any owner: "b>c c=1 a>b", "a>b b>a
 * a=1"), the fast path takes nothing and glibc decides.  dns_glibc.py
 * checks both against the real glibc.  Each case: the records, and what the
 * fast path takes ("" for nothing, "1", "2", "12"). */
static void test_cname_orders(void)
{
	static const struct { const char *records, *want, *why; } cases[] = {
		{ "a>b b=2", "2", "a CNAME, then the A record it leads to" },
		{ "b=2 a>b", "", "the A record before the CNAME that leads to it (glibc: no address)" },
		{ "a>b b>a b=2", "", "a CNAME loop a->b->a with an A record for b (glibc: no address)" },
		{ "a>b b>a a=1", "", "a CNAME loop back to the question's name: left to glibc" },
		{ "a>b a=1", "", "an A record of a name the chain has left" },
		{ "a=1 a>b b=2", "12", "the question's A record, then a CNAME and its target's" },
		{ "a>b a>c c=2", "", "a second CNAME of a name the chain has left" },
		{ "a>b b>c c=1 b=2", "1", "the chain's last name only, after the CNAME" },
	};
	/* every order of the three records of a two-step chain: only the
	 * one in the chain's order gives the address (glibc also takes it
	 * from "b>c c=1 a>b": the fast path leaves that one to glibc) */
	static const char *const orders[] = {
		"a>b b>c c=1", "a>b c=1 b>c", "b>c a>b c=1", "b>c c=1 a>b", "c=1 a>b b>c", "c=1 b>c a>b",
	};
	struct msg m;
	uint32_t a[8];
	size_t n;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char got[8] = "";
		bool ok;

		answer_of(&m, cases[i].records);
		ok = parse(&m, "api.test", a, &n);
		for (size_t k = 0; ok && k < n && k < 2; k++)
			strcat(got, a[k] == 0xc633640a ? "1" : a[k] == 0xc633640b ? "2" : "?");
		CHECK(ok == (cases[i].want[0] != '\0') && strcmp(got, cases[i].want) == 0,
		      "[%s] %s: wants '%s', got '%s'", cases[i].records, cases[i].why, cases[i].want, got);
	}
	for (size_t i = 0; i < sizeof(orders) / sizeof(orders[0]); i++) {
		bool ok;

		answer_of(&m, orders[i]);
		ok = parse(&m, "api.test", a, &n);
		CHECK(ok == (i == 0) && (!ok || (n == 1 && a[0] == 0xc633640a)),
		      "[%s]: %s", orders[i], i == 0 ? "the chain in order gives the address" : "out of order: no address");
	}
}

static void test_refused(void)
{
	struct msg m;
	uint32_t a[8];
	size_t n;

	start(&m, RESP | 3, "api.test", 1, 0);
	CHECK(!parse(&m, "api.test", a, &n), "NXDOMAIN: glibc decides");
	start(&m, RESP | 2, "api.test", 1, 1);
	rr(&m, 12, NULL, 1, ADDR1, 4);
	CHECK(!parse(&m, "api.test", a, &n), "SERVFAIL, even with a record: glibc decides");
	start(&m, RESP | 0x0200, "api.test", 1, 1);
	rr(&m, 12, NULL, 1, ADDR1, 4);
	CHECK(!parse(&m, "api.test", a, &n), "truncated (TC): glibc decides");
	start(&m, RESP & ~0x8000, "api.test", 1, 1);
	rr(&m, 12, NULL, 1, ADDR1, 4);
	CHECK(!parse(&m, "api.test", a, &n), "a query, not a response");
	start(&m, RESP | 0x0800, "api.test", 1, 1);
	rr(&m, 12, NULL, 1, ADDR1, 4);
	CHECK(!parse(&m, "api.test", a, &n), "another opcode");
	start(&m, RESP, "api.test", 1, 1);
	rr(&m, 12, NULL, 1, ADDR1, 4);
	CHECK(!dns_answer_addrs(m.b, m.n, 0x4321, "api.test", a, 8, &n), "another id");
	CHECK(!parse(&m, "other.test", a, &n), "another question");
	start(&m, RESP, "api.test", 28, 1);
	rr(&m, 12, NULL, 1, ADDR1, 4);
	CHECK(!parse(&m, "api.test", a, &n), "another question type");
	start(&m, RESP, "api.test", 1, 1);
	rr(&m, 12, NULL, 1, ADDR1, 3);
	CHECK(!parse(&m, "api.test", a, &n), "an A record of 3 bytes");
	start(&m, RESP, "api.test", 1, 1);
	rr(&m, 12, NULL, 1, ADDR1, 4);
	for (size_t cut = 0; cut < m.n; cut++)
		if (dns_answer_addrs(m.b, cut, 0x1234, "api.test", a, 8, &n)) {
			CHECK(0, "a message cut at %zu bytes gave an answer", cut);
			break;
		}
	CHECK(parse(&m, "api.test", a, &n), "... and whole it does");
	/* compression loops and pointers past the end */
	start(&m, RESP, "api.test", 1, 1);
	m.b[m.n] = 0xc0;
	m.b[m.n + 1] = (uint8_t)m.n;  /* points at itself */
	m.n += 2;
	put16(&m, 1);
	put16(&m, 1);
	put16(&m, 0);
	put16(&m, 60);
	put16(&m, 4);
	put(&m, ADDR1, 4);
	CHECK(!parse(&m, "api.test", a, &n), "a pointer loop ends the walk");
	start(&m, RESP, "api.test", 1, 1);
	rr(&m, 0x3ff0, NULL, 1, ADDR1, 4);
	CHECK(!parse(&m, "api.test", a, &n), "a pointer past the message");
	/* the record count claims more than there is */
	start(&m, RESP, "api.test", 1, 3);
	rr(&m, 12, NULL, 1, ADDR1, 4);
	CHECK(!parse(&m, "api.test", a, &n), "more answers counted than present");
	/* random bytes after a valid header and question never answer wrongly */
	srand(7);
	for (int round = 0; round < 20000; round++) {
		size_t len;
		bool ok;

		start(&m, RESP, "api.test", 1, (uint16_t)(rand() % 4));
		len = m.n + (size_t)(rand() % 200);
		for (size_t i = m.n; i < len; i++)
			m.b[i] = (uint8_t)(rand() % 4 == 0 ? 0xc0 : rand());
		m.n = len;
		ok = parse(&m, "api.test", a, &n);
		if ((ok && (n == 0 || n > 8)) || (!ok && n != 0)) {
			CHECK(0, "random answers: a count of %zu with result %d", n, ok);
			break;
		}
	}
}

/* Writes text to a fresh file in dir; returns its path (static buffer per slot). */
static const char *file(const char *dir, const char *name, const char *text)
{
	static char paths[4][256];
	static int slot;
	char *p = paths[slot++ % 4];
	FILE *f;

	snprintf(p, 256, "%s/%s", dir, name);
	f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	return p;
}

static void test_gate(void)
{
	char dir[] = "/tmp/cs-dns-stub-XXXXXX";
	struct dns_stub s = { .nameserver = 0xc0000201 };

	CHECK(mkdtemp(dir) != NULL, "a temporary directory");
	s.nsswitch_conf = file(dir, "nsswitch", "# comment\npasswd: files\nhosts:   files dns # Debian's\n");
	s.resolv_conf = file(dir, "resolv", "nameserver 192.0.2.1\nsearch corp.test\noptions timeout:2 attempts:3 rotate\n");
	s.hosts = file(dir, "hosts", "127.0.0.1 localhost\n198.51.100.7 pinned.test alias.test # mine\n");
	CHECK(dns_stub_applies(&s, "api.test") == 1, "Debian's files: the fast path");
	CHECK(dns_stub_applies(&s, "pinned.test") == 0 && dns_stub_applies(&s, "ALIAS.test") == 0,
	      "a name or alias in /etc/hosts is glibc's");
	CHECK(dns_stub_applies(&s, "localhost") == 0, "a name without a dot (ndots 1) is glibc's");
	s.nameserver = 0;
	CHECK(dns_stub_applies(&s, "api.test") == 0, "no nameserver: none");
	s.nameserver = 0xc0000201;
	s.resolv_conf = file(dir, "resolv", "nameserver 192.0.2.1\noptions ndots:5\n");
	CHECK(dns_stub_applies(&s, "api.github.com") == 0, "ndots:5 (search domains first): glibc's");
	CHECK(dns_stub_applies(&s, "a.b.c.d.e.test") == 1, "ndots:5 and five dots: ours");
	s.resolv_conf = file(dir, "resolv", "nameserver 192.0.2.1\noptions use-vc\n");
	CHECK(dns_stub_applies(&s, "api.test") == 0, "options use-vc: glibc's");
	s.resolv_conf = file(dir, "resolv", "nameserver 192.0.2.1\noptions inet6\n");
	CHECK(dns_stub_applies(&s, "api.test") == 0, "options inet6: glibc's");
	s.resolv_conf = file(dir, "resolv", "nameserver 192.0.2.1\n");
	s.nsswitch_conf = file(dir, "nsswitch", "hosts: files mdns4_minimal [NOTFOUND=return] dns\n");
	CHECK(dns_stub_applies(&s, "api.test") == 0, "another hosts line in nsswitch.conf: glibc's");
	s.nsswitch_conf = file(dir, "nsswitch", "hosts: files dns\nhosts: files dns\n");
	CHECK(dns_stub_applies(&s, "api.test") == 0, "two hosts lines: glibc's");
	s.nsswitch_conf = file(dir, "nsswitch", "passwd: files\n");
	CHECK(dns_stub_applies(&s, "api.test") == 0, "no hosts line (glibc's default): glibc's");
	s.nsswitch_conf = file(dir, "nsswitch", "hosts: files dns\n");
	s.hosts = "/nonexistent/hosts";
	CHECK(dns_stub_applies(&s, "api.test") == 1, "no /etc/hosts: ours");
	s.nsswitch_conf = "/nonexistent/nsswitch.conf";
	CHECK(dns_stub_applies(&s, "api.test") == 0, "no nsswitch.conf: glibc's");
	s.nsswitch_conf = file(dir, "nsswitch", "hosts: files dns\n");
	setenv("RES_OPTIONS", "ndots:1", 1);
	CHECK(dns_stub_applies(&s, "api.test") == 0, "RES_OPTIONS set: glibc's");
	unsetenv("RES_OPTIONS");
	setenv("LOCALDOMAIN", "corp.test", 1);
	CHECK(dns_stub_applies(&s, "api.test") == 0, "LOCALDOMAIN set: glibc's");
	unsetenv("LOCALDOMAIN");
	CHECK(dns_stub_applies(&s, "api.test") == 1, "and back: ours");
	for (const char *const *f = (const char *const[]){ "nsswitch", "resolv", "hosts", NULL }; *f; f++) {
		char p[256];

		snprintf(p, sizeof(p), "%s/%s", dir, *f);
		unlink(p);
	}
	CHECK(rmdir(dir) == 0, "the temporary directory removed");
}

int main(void)
{
	test_query();
	test_positive();
	test_cname_orders();
	test_refused();
	test_gate();
	return check_done("test_dns_stub");
}
