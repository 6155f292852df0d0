/* CLI_SANDBOX_ALLOW: what is accepted, as what, and every rejection with
 * a message that names the entry. */
#include <stdlib.h>
#include <string.h>

#include "base/allow.h"
#include "check.h"

#define A(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (uint32_t)(d))

struct want {
	const char *name;  /* NULL: an address range */
	uint32_t first, last;
	uint16_t port;
	const char *text;  /* NULL: not checked */
};

static void test_accept(void)
{
	static const struct {
		const char *in;
		size_t n;
		struct want e[3];
	} cases[] = {
		{ "example.org", 1, { { "example.org", 0, 0, 443, "example.org" } } },
		{ "Example.ORG:8443", 1, { { "example.org", 0, 0, 8443, "Example.ORG:8443" } } },
		{ "db", 1, { { "db", 0, 0, 443, "db" } } },
		{ "xn--bcher-kva.example:1", 1, { { "xn--bcher-kva.example", 0, 0, 1, NULL } } },
		{ "192.0.2.10", 1, { { NULL, A(192, 0, 2, 10), A(192, 0, 2, 10), 443, "192.0.2.10" } } },
		{ "192.0.2.10:65535", 1, { { NULL, A(192, 0, 2, 10), A(192, 0, 2, 10), 65535, NULL } } },
		{ "198.51.100.0/24:8080", 1, { { NULL, A(198, 51, 100, 0), A(198, 51, 100, 255), 8080, NULL } } },
		{ "192.0.2.7/32", 1, { { NULL, A(192, 0, 2, 7), A(192, 0, 2, 7), 443, NULL } } },
		{ "10.0.0.0/8", 1, { { NULL, A(10, 0, 0, 0), A(10, 255, 255, 255), 443, NULL } } },
		{ "223.255.255.255", 1, { { NULL, A(223, 255, 255, 255), A(223, 255, 255, 255), 443, NULL } } },
		{ "a.example,192.0.2.1:22,b.example:80", 3,
		  { { "a.example", 0, 0, 443, NULL }, { NULL, A(192, 0, 2, 1), A(192, 0, 2, 1), 22, NULL },
		    { "b.example", 0, 0, 80, NULL } } },
		{ "1a.example", 1, { { "1a.example", 0, 0, 443, NULL } } },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct allow_entry *v = NULL;
		size_t n = 0;
		struct cs_error err = { 0 };
		int rc = allow_parse(cases[i].in, &v, &n, &err);

		CHECK(rc == 0 && n == cases[i].n, "'%s': rc %d n %zu: %s", cases[i].in, rc, n, err.msg);
		for (size_t k = 0; rc == 0 && k < n && k < cases[i].n; k++) {
			const struct want *w = &cases[i].e[k];

			CHECK(v[k].is_name == (w->name != NULL), "'%s' [%zu] kind", cases[i].in, k);
			if (w->name)
				CHECK_STR(v[k].name, w->name);
			else
				CHECK(v[k].range.first == w->first && v[k].range.last == w->last,
				      "'%s' [%zu] %08x-%08x", cases[i].in, k, v[k].range.first, v[k].range.last);
			CHECK(v[k].port == w->port, "'%s' [%zu] port %u", cases[i].in, k, v[k].port);
			if (w->text)
				CHECK_STR(v[k].text, w->text);
		}
		free(v);
	}
}

static void test_reject(void)
{
	static const struct {
		const char *in, *want;  /* want: a part of the message */
	} cases[] = {
		{ "", "is empty" },
		{ ",", "entry 1 is empty" },
		{ "a.example,", "entry 2 is empty" },
		{ "a.example,,b.example", "entry 2 is empty" },
		{ "a.example, b.example", "' b.example' contains whitespace" },
		{ "a.example\t", "contains whitespace" },
		{ "a\x01.example", "control character" },
		{ "bücher.example", "non-ASCII" },
		{ "a_b.example", "contains '_'" },
		{ "https://a.example", "'https://a.example' is a URL" },
		{ "a.example/path", "not a valid a.b.c.d/len" },
		{ "user@a.example", "contains '@'" },
		{ "*.example.org", "contains '*'" },
		{ "a.example.", "ends with a dot" },
		{ "-a.example", "not a valid DNS name" },
		{ "a-.example", "not a valid DNS name" },
		{ "a..example", "not a valid DNS name" },
		{ "1.2.3", "not a dotted-quad" },
		{ "192.0.2", "not a dotted-quad" },
		{ "0x7f.0.0.1", "not a dotted-quad" },
		{ "192.0..2", "not a dotted-quad" },
		{ "192.0..2:443", "not a dotted-quad" },
		{ "0300.0.2.1", "not a dotted-quad" },
		{ "192.0.2.010", "not a dotted-quad" },
		{ "192.0.2.256", "not a dotted-quad" },
		{ "3221225985", "not a dotted-quad" },
		{ "127.0.0.1", "loopback" },
		{ "127.0.0.11:53", "loopback" },
		{ "0.0.0.0", "unspecified" },
		{ "169.254.169.254", "link-local" },
		{ "224.0.0.1", "multicast" },
		{ "255.255.255.255", "reserved" },
		{ "240.0.0.1:443", "reserved" },
		{ "0.0.0.0/0", "'0.0.0.0/0' is wider than /8" },
		{ "128.0.0.0/1", "wider than /8" },
		{ "10.0.0.0/7", "wider than /8" },
		{ "126.0.0.0/7", "wider than /8" },
		{ "120.0.0.0/5", "wider than /8" },
		{ "127.0.0.0/8", "loopback" },
		{ "169.254.0.0/16", "link-local" },
		{ "169.0.0.0/8", "link-local" },
		{ "224.0.0.0/8", "multicast" },
		{ "192.0.2.1/24", "host bits set; write the network address (192.0.2.0/24)" },
		{ "192.0.2.0/33", "not a valid a.b.c.d/len" },
		{ "192.0.2.0/024", "not a valid a.b.c.d/len" },
		{ "192.0.2.0/", "not a valid a.b.c.d/len" },
		{ "192.0.02.0/24", "not a valid a.b.c.d/len" },
		{ "192.0.2.0/24/24", "not a valid a.b.c.d/len" },
		{ "a.example:", "empty port" },
		{ "a.example:0", "invalid port" },
		{ "a.example:65536", "invalid port" },
		{ "a.example:0443", "invalid port" },
		{ "a.example:+443", "contains '+'" },
		{ "a.example:https", "invalid port" },
		{ "a.example:53", "port 53" },
		{ "192.0.2.53:53", "port 53" },
		{ ":443", "no host" },
		{ "[2001:db8::1]:443", "IPv6" },
		{ "2001:db8::1", "IPv6" },
		{ "a.example:443:443", "IPv6" },
		{ "good.example,192.0.2.1/24,other.example", "'192.0.2.1/24'" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct allow_entry *v = (struct allow_entry *)1;
		size_t n = 7;
		struct cs_error err = { 0 };
		int rc = allow_parse(cases[i].in, &v, &n, &err);

		CHECK(rc == -1 && err.status == 78, "'%s' accepted", cases[i].in);
		CHECK(strstr(err.msg, cases[i].want) != NULL, "'%s': message '%s' lacks '%s'", cases[i].in, err.msg, cases[i].want);
		CHECK(strncmp(err.msg, "CLI_SANDBOX_ALLOW", 17) == 0 && strchr(err.msg, ';'), "'%s': style '%s'", cases[i].in, err.msg);
		CHECK(v == NULL && n == 0, "'%s': outputs reset", cases[i].in);
	}
}

static void test_long(void)
{
	char buf[4096];
	struct allow_entry *v;
	size_t n;
	struct cs_error err;
	char label[64];

	/* a 253-character name is fine; 254 is not */
	memset(label, 'a', 63);
	label[63] = '\0';
	snprintf(buf, sizeof(buf), "%s.%s.%s.%.61s", label, label, label, label);
	CHECK(strlen(buf) == 253, "len %zu", strlen(buf));
	CHECK(allow_parse(buf, &v, &n, &err) == 0 && n == 1 && strlen(v[0].name) == 253, "253 chars: %s", err.msg);
	CHECK(strlen(v[0].text) < ALLOW_TEXT_MAX && strstr(v[0].text, "..."), "text shortened: '%s'", v[0].text);
	free(v);
	strcat(buf, "a");
	CHECK(allow_parse(buf, &v, &n, &err) == -1 && strstr(err.msg, "not a valid DNS name"), "254 chars");
	/* a 64-character label is not */
	snprintf(buf, sizeof(buf), "%sa.example", label);
	CHECK(allow_parse(buf, &v, &n, &err) == -1, "64-char label");
	/* many entries */
	buf[0] = '\0';
	for (int i = 0; i < 200; i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s192.0.2.%d", i ? "," : "", i % 256);
	CHECK(allow_parse(buf, &v, &n, &err) == 0 && n == 200, "200 entries: %s", err.msg);
	free(v);
}

int main(void)
{
	test_accept();
	test_reject();
	test_long();
	return check_done("profiles/allow");
}
