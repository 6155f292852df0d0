/* Range arithmetic (normalise, subtract, forbidden blocks, prefixes) and the
 * providers' file formats, read from fixtures. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/ipv4.h"
#include "profiles/ranges.h"
#include "check.h"

#define A(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (uint32_t)(d))

static struct range_list list(size_t n, const uint32_t *pairs)
{
	struct range_list l = { 0 };

	for (size_t i = 0; i < n; i++)
		if (range_list_add(&l, pairs[2 * i], pairs[2 * i + 1]))
			abort();
	return l;
}

/* l equals the n (first, last) pairs */
static int same(const struct range_list *l, size_t n, const uint32_t *pairs)
{
	if (l->n != n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (l->r[i].first != pairs[2 * i] || l->r[i].last != pairs[2 * i + 1])
			return 0;
	return 1;
}

static void dump(const char *what, const struct range_list *l)
{
	fprintf(stderr, "  %s:", what);
	for (size_t i = 0; i < l->n; i++)
		fprintf(stderr, " %08x-%08x", l->r[i].first, l->r[i].last);
	fputc('\n', stderr);
}

#define CHECK_LIST(l, ...)                                                              \
	do {                                                                            \
		const uint32_t want_[] = { __VA_ARGS__ };                               \
		int ok_ = same(&(l), sizeof(want_) / sizeof(want_[0]) / 2, want_);      \
		CHECK(ok_, "list differs");                                             \
		if (!ok_)                                                               \
			dump("got", &(l));                                              \
	} while (0)

static void test_normalise(void)
{
	/* overlap, adjacency, containment, duplicates, unsorted input */
	uint32_t in[] = { A(10, 0, 0, 10), A(10, 0, 0, 20), A(10, 0, 0, 0), A(10, 0, 0, 9),
			  A(10, 0, 0, 15), A(10, 0, 0, 16), A(10, 0, 0, 22), A(10, 0, 0, 30),
			  A(10, 0, 0, 40), A(10, 0, 0, 40), A(10, 0, 0, 40), A(10, 0, 0, 40) };
	struct range_list l = list(6, in);

	range_list_normalise(&l);
	CHECK_LIST(l, A(10, 0, 0, 0), A(10, 0, 0, 20), A(10, 0, 0, 22), A(10, 0, 0, 30),
		   A(10, 0, 0, 40), A(10, 0, 0, 40));
	range_list_free(&l);

	/* the top of the address space, and everything */
	uint32_t top[] = { A(255, 255, 255, 255), A(255, 255, 255, 255), A(255, 255, 255, 0), A(255, 255, 255, 254),
			   0, 0 };
	l = list(3, top);
	range_list_normalise(&l);
	CHECK_LIST(l, 0, 0, A(255, 255, 255, 0), UINT32_MAX);
	range_list_free(&l);

	uint32_t all[] = { 0, UINT32_MAX, A(1, 2, 3, 4), A(1, 2, 3, 4), UINT32_MAX, UINT32_MAX };
	l = list(3, all);
	range_list_normalise(&l);
	CHECK_LIST(l, 0, UINT32_MAX);
	range_list_free(&l);

	/* adjacent across an octet boundary merge; a gap of one does not */
	uint32_t adj[] = { A(10, 0, 0, 0), A(10, 0, 0, 255), A(10, 0, 1, 0), A(10, 0, 1, 255),
			   A(10, 0, 2, 1), A(10, 0, 2, 1) };
	l = list(3, adj);
	range_list_normalise(&l);
	CHECK_LIST(l, A(10, 0, 0, 0), A(10, 0, 1, 255), A(10, 0, 2, 1), A(10, 0, 2, 1));
	range_list_free(&l);

	l = (struct range_list){ 0 };
	range_list_normalise(&l);
	CHECK(l.n == 0, "empty stays empty");
}

static void test_subtract(void)
{
	struct range_list a, b, out;

	/* a hole in the middle, both edges, a b range spanning two a ranges */
	uint32_t av[] = { A(10, 0, 0, 0), A(10, 0, 0, 255), A(10, 0, 2, 0), A(10, 0, 2, 255) };
	uint32_t bv[] = { A(10, 0, 0, 0), A(10, 0, 0, 9), A(10, 0, 0, 100), A(10, 0, 0, 109),
			  A(10, 0, 0, 250), A(10, 0, 2, 4) };
	a = list(2, av);
	b = list(3, bv);
	CHECK(range_list_subtract(&a, &b, &out) == 0, "subtract");
	CHECK_LIST(out, A(10, 0, 0, 10), A(10, 0, 0, 99), A(10, 0, 0, 110), A(10, 0, 0, 249),
		   A(10, 0, 2, 5), A(10, 0, 2, 255));
	range_list_free(&out);

	/* minus nothing, nothing minus something, minus everything */
	struct range_list none = { 0 };

	CHECK(range_list_subtract(&a, &none, &out) == 0, "minus nothing");
	CHECK_LIST(out, A(10, 0, 0, 0), A(10, 0, 0, 255), A(10, 0, 2, 0), A(10, 0, 2, 255));
	range_list_free(&out);
	CHECK(range_list_subtract(&none, &a, &out) == 0 && out.n == 0, "nothing minus a");
	range_list_free(&out);
	uint32_t everything[] = { 0, UINT32_MAX };
	struct range_list all = list(1, everything);

	CHECK(range_list_subtract(&a, &all, &out) == 0 && out.n == 0, "a minus everything");
	range_list_free(&out);

	/* /0 minus the first and the last address: 255.255.255.255 edge */
	uint32_t ends[] = { 0, 0, UINT32_MAX, UINT32_MAX };
	struct range_list e = list(2, ends);

	CHECK(range_list_subtract(&all, &e, &out) == 0, "all minus ends");
	CHECK_LIST(out, 1, UINT32_MAX - 1);
	range_list_free(&out);
	/* a range ending at 255.255.255.255 minus something below it */
	uint32_t hi[] = { A(255, 255, 255, 0), UINT32_MAX }, mid[] = { A(255, 255, 255, 10), A(255, 255, 255, 19) };
	struct range_list h = list(1, hi), m = list(1, mid);

	CHECK(range_list_subtract(&h, &m, &out) == 0, "top minus middle");
	CHECK_LIST(out, A(255, 255, 255, 0), A(255, 255, 255, 9), A(255, 255, 255, 20), UINT32_MAX);
	range_list_free(&out);
	CHECK(range_list_subtract(&m, &h, &out) == 0 && out.n == 0, "contained minus container");
	range_list_free(&out);
	/* /32 minus itself, and minus its neighbours */
	uint32_t one[] = { A(10, 1, 1, 1), A(10, 1, 1, 1) };
	uint32_t nb[] = { A(10, 1, 1, 0), A(10, 1, 1, 0), A(10, 1, 1, 2), A(10, 1, 1, 2) };
	struct range_list o = list(1, one), n = list(2, nb);

	CHECK(range_list_subtract(&o, &o, &out) == 0 && out.n == 0, "/32 minus itself");
	range_list_free(&out);
	CHECK(range_list_subtract(&o, &n, &out) == 0, "/32 minus neighbours");
	CHECK_LIST(out, A(10, 1, 1, 1), A(10, 1, 1, 1));
	range_list_free(&out);

	range_list_free(&a);
	range_list_free(&b);
	range_list_free(&all);
	range_list_free(&e);
	range_list_free(&h);
	range_list_free(&m);
	range_list_free(&o);
	range_list_free(&n);
}

/* Property check against a bitmap over a small universe: normalise and
 * subtract agree with set arithmetic for random inputs. */
static void test_subtract_random(void)
{
	enum { U = 4096, ROUNDS = 300 };
	const uint32_t base = A(10, 20, 0, 0);
	static unsigned char wa[U], wb[U], got[U];
	unsigned seed = 12345;
	int bad = 0;

	for (int round = 0; round < ROUNDS; round++) {
		struct range_list a = { 0 }, b = { 0 }, out;
		int na = 1 + (int)(rand_r(&seed) % 12), nb = (int)(rand_r(&seed) % 12);

		memset(wa, 0, U);
		memset(wb, 0, U);
		memset(got, 0, U);
		for (int i = 0; i < na + nb; i++) {
			uint32_t f = (uint32_t)(rand_r(&seed) % U), len = (uint32_t)(rand_r(&seed) % 400);
			uint32_t l = f + len >= U ? U - 1 : f + len;

			range_list_add(i < na ? &a : &b, base + f, base + l);
			memset((i < na ? wa : wb) + f, 1, l - f + 1);
		}
		range_list_normalise(&a);
		range_list_normalise(&b);
		for (size_t i = 0; i + 1 < a.n; i++)
			bad += a.r[i].last + 1 >= a.r[i + 1].first;  /* sorted, no overlap, no adjacency */
		if (range_list_subtract(&a, &b, &out))
			abort();
		for (size_t i = 0; i < out.n; i++) {
			bad += out.r[i].first > out.r[i].last;
			if (i + 1 < out.n)
				bad += out.r[i].last + 1 >= out.r[i + 1].first;
			for (uint32_t x = out.r[i].first; x <= out.r[i].last; x++)
				got[x - base] = 1;
		}
		for (int x = 0; x < U; x++)
			bad += got[x] != (wa[x] && !wb[x]);
		range_list_free(&a);
		range_list_free(&b);
		range_list_free(&out);
	}
	CHECK(bad == 0, "%d mismatches against the bitmap", bad);
}

/* Large lists (the radix sort's path, 64 ranges and more): the result is
 * what a plain qsort-and-merge gives, for ranges anywhere in the address
 * space (every byte of the first address varies) and dense ones. */
static int cmp_first_last(const void *x, const void *y)
{
	const struct ipv4_range *a = x, *b = y;

	if (a->first != b->first)
		return a->first < b->first ? -1 : 1;
	return (a->last > b->last) - (a->last < b->last);
}

static void test_normalise_large(void)
{
	unsigned seed = 4242;
	int bad = 0;

	for (int round = 0; round < 40; round++) {
		size_t n = 64 + (size_t)(rand_r(&seed) % 6000), m = 0;
		struct range_list l = { 0 };
		struct ipv4_range *ref = calloc(n, sizeof(*ref));

		if (!ref)
			abort();
		for (size_t i = 0; i < n; i++) {
			uint32_t f = round % 2 ? (uint32_t)rand_r(&seed) << 1 ^ (uint32_t)rand_r(&seed)  /* anywhere */
					       : A(10, 0, 0, 0) + (uint32_t)(rand_r(&seed) % 20000);  /* dense */
			uint32_t len = (uint32_t)(rand_r(&seed) % 300);
			uint32_t l_ = f > UINT32_MAX - len ? UINT32_MAX : f + len;

			range_list_add(&l, f, l_);
			ref[i] = (struct ipv4_range){ f, l_ };
		}
		qsort(ref, n, sizeof(*ref), cmp_first_last);
		for (size_t i = 1; i < n; i++) {
			if (ref[m].last == UINT32_MAX || ref[i].first <= ref[m].last + 1) {
				if (ref[i].last > ref[m].last)
					ref[m].last = ref[i].last;
			} else {
				ref[++m] = ref[i];
			}
		}
		m++;
		range_list_normalise(&l);
		bad += l.n != m;
		for (size_t i = 0; i < l.n && l.n == m; i++)
			bad += l.r[i].first != ref[i].first || l.r[i].last != ref[i].last;
		range_list_free(&l);
		free(ref);
	}
	CHECK(bad == 0, "large lists: %d mismatches against qsort and merge", bad);
}

static void test_prefix(void)
{
	static const struct {
		const char *s;
		int ok;
		uint32_t addr;
		unsigned len;
		int host_bits;
	} cases[] = {
		{ "192.0.2.0/24", 1, A(192, 0, 2, 0), 24, 0 },
		{ "192.0.2.1/24", 1, A(192, 0, 2, 1), 24, 1 },
		{ "198.51.100.7/32", 1, A(198, 51, 100, 7), 32, 0 },
		{ "0.0.0.0/0", 1, 0, 0, 0 },
		{ "255.255.255.255/32", 1, UINT32_MAX, 32, 0 },
		{ "255.255.255.255/0", 1, UINT32_MAX, 0, 1 },
		{ "10.0.0.0/8", 1, A(10, 0, 0, 0), 8, 0 },
		{ "192.0.2.0", 0, 0, 0, 0 },
		{ "192.0.2.0/", 0, 0, 0, 0 },
		{ "192.0.2.0/33", 0, 0, 0, 0 },
		{ "192.0.2.0/024", 0, 0, 0, 0 },
		{ "192.0.2.0/08", 0, 0, 0, 0 },
		{ "192.0.2.0/00", 0, 0, 0, 0 },
		{ "192.0.2.0/-1", 0, 0, 0, 0 },
		{ "192.0.2.0/+8", 0, 0, 0, 0 },
		{ "192.0.2.0/ 8", 0, 0, 0, 0 },
		{ "192.0.2.0/8 ", 0, 0, 0, 0 },
		{ "192.0.2/24", 0, 0, 0, 0 },
		{ "192.0.02.0/24", 0, 0, 0, 0 },
		{ "0xc0.0.2.0/24", 0, 0, 0, 0 },
		{ "192.0.2.256/24", 0, 0, 0, 0 },
		{ "192.0.2.0/24/24", 0, 0, 0, 0 },
		{ "/24", 0, 0, 0, 0 },
		{ "", 0, 0, 0, 0 },
		{ "2001:db8::/32", 0, 0, 0, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t addr = 0;
		unsigned len = 99;
		bool hb = false;
		int rc = ipv4_prefix_parse(cases[i].s, strlen(cases[i].s), &addr, &len, &hb);

		CHECK((rc == 0) == cases[i].ok, "'%s': rc %d", cases[i].s, rc);
		if (rc == 0 && cases[i].ok)
			CHECK(addr == cases[i].addr && len == cases[i].len && hb == (cases[i].host_bits != 0),
			      "'%s': %08x/%u hb=%d", cases[i].s, addr, len, hb);
	}
	/* the prefix is only the bytes given: a longer buffer is not read */
	{
		uint32_t addr;
		unsigned len;
		bool hb;

		CHECK(ipv4_prefix_parse("192.0.2.0/24XYZ", 12, &addr, &len, &hb) == 0 && len == 24, "len bound");
	}

	struct ipv4_range r = ipv4_prefix_range(A(192, 0, 2, 77), 24);

	CHECK(r.first == A(192, 0, 2, 0) && r.last == A(192, 0, 2, 255), "/24 masks host bits");
	r = ipv4_prefix_range(A(192, 0, 2, 77), 32);
	CHECK(r.first == r.last && r.first == A(192, 0, 2, 77), "/32");
	r = ipv4_prefix_range(A(192, 0, 2, 77), 31);
	CHECK(r.first == A(192, 0, 2, 76) && r.last == A(192, 0, 2, 77), "/31");
	r = ipv4_prefix_range(A(192, 0, 2, 77), 0);
	CHECK(r.first == 0 && r.last == UINT32_MAX, "/0");
	r = ipv4_prefix_range(UINT32_MAX, 1);
	CHECK(r.first == 0x80000000u && r.last == UINT32_MAX, "/1 upper half");
}

static void test_forbidden(void)
{
	uint32_t everything[] = { 0, UINT32_MAX };
	struct range_list l = list(1, everything);
	bool cut = false;

	/* resolv.conf may name loopback and link-local resolvers, nothing else
	 * of the forbidden blocks */
	CHECK(ipv4_forbidden_destination(A(127, 0, 0, 11)) != NULL, "loopback is no destination");
	CHECK(ipv4_forbidden_nameserver(A(127, 0, 0, 11)) == NULL, "Docker's resolver is a nameserver");
	CHECK(ipv4_forbidden_nameserver(A(169, 254, 169, 253)) == NULL, "a cloud resolver is a nameserver");
	CHECK(ipv4_forbidden_nameserver(A(0, 0, 0, 0)) != NULL, "0.0.0.0 is no nameserver");
	CHECK(ipv4_forbidden_nameserver(A(224, 0, 0, 251)) != NULL, "multicast is no nameserver");
	CHECK(ipv4_forbidden_nameserver(UINT32_MAX) != NULL, "broadcast is no nameserver");
	CHECK(ipv4_forbidden_nameserver(A(192, 0, 2, 1)) == NULL, "a plain address is a nameserver");

	CHECK(range_list_remove_forbidden(&l, &cut) == 0 && cut, "cut from everything");
	CHECK_LIST(l, A(1, 0, 0, 0), A(126, 255, 255, 255), A(128, 0, 0, 0), A(169, 253, 255, 255),
		   A(169, 255, 0, 0), A(223, 255, 255, 255));
	range_list_free(&l);

	uint32_t clean[] = { A(192, 0, 2, 0), A(192, 0, 2, 255), A(198, 51, 100, 0), A(198, 51, 100, 255) };

	l = list(2, clean);
	CHECK(range_list_remove_forbidden(&l, &cut) == 0 && !cut, "nothing to cut");
	CHECK_LIST(l, A(192, 0, 2, 0), A(192, 0, 2, 255), A(198, 51, 100, 0), A(198, 51, 100, 255));
	range_list_free(&l);

	CHECK(ipv4_range_forbidden_overlap((struct ipv4_range){ A(126, 0, 0, 0), A(127, 0, 0, 0) }) != NULL, "overlap at start");
	CHECK(ipv4_range_forbidden_overlap((struct ipv4_range){ A(169, 254, 255, 255), A(170, 0, 0, 0) }) != NULL, "overlap at end");
	CHECK(ipv4_range_forbidden_overlap((struct ipv4_range){ A(1, 0, 0, 0), A(126, 255, 255, 255) }) == NULL, "between");
}

static char tmpdir[64];

static const char *write_tmp(const char *name, const char *text)
{
	static char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f))
		abort();
	return path;
}

static void test_github_meta(void)
{
	const char *lists443[] = { "web", "api", "git" }, *lists22[] = { "git" };
	struct range_list l;
	struct cs_error err = { 0 };

	CHECK(ranges_load_github_meta(FIXTURES "/github-meta.json", lists443, 3, &l, &err) == 0, "%s", err.msg);
	/* web 192.0.2.0/27 + /27 and api /26 + a /32 inside: one /25; git's two; IPv6 skipped;
	 * hooks, packages and actions not read */
	CHECK_LIST(l, A(192, 0, 2, 0), A(192, 0, 2, 127), A(198, 51, 100, 0), A(198, 51, 100, 127),
		   A(198, 51, 100, 200), A(198, 51, 100, 207));
	range_list_free(&l);
	CHECK(ranges_load_github_meta(FIXTURES "/github-meta.json", lists22, 1, &l, &err) == 0, "%s", err.msg);
	CHECK_LIST(l, A(198, 51, 100, 0), A(198, 51, 100, 127), A(198, 51, 100, 200), A(198, 51, 100, 207));
	range_list_free(&l);

	CHECK(ranges_load_github_meta(FIXTURES "/absent.json", lists22, 1, &l, &err) == 1, "missing file is 1");

	static const struct {
		const char *file, *want1, *want2;
	} bad[] = {
		{ "bad/github-meta-bad-entry.json", "git[1]", "198.51.100.300/29" },
		{ "bad/github-meta-no-git.json", "no \"git\" list", "github-meta-no-git.json" },
		{ "bad/github-meta-syntax.json", "line 3", "github-meta-syntax.json" },
		{ "bad/github-meta-number.json", "api[0] is not a string", "github-meta-number.json" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char path[256];

		snprintf(path, sizeof(path), FIXTURES "/%s", bad[i].file);
		memset(&err, 0, sizeof(err));
		CHECK(ranges_load_github_meta(path, lists443, 3, &l, &err) == -1 && err.status == CS_EXIT_CONFIG,
		      "%s accepted", bad[i].file);
		CHECK(strstr(err.msg, bad[i].want1) && strstr(err.msg, bad[i].want2), "%s: '%s'", bad[i].file, err.msg);
		CHECK(l.n == 0 && l.r == NULL, "nothing returned on error");
	}

	const char *p = write_tmp("wide.json", "{\"web\":[\"192.0.2.0/27\"],\"api\":[\"0.0.0.0/0\"],\"git\":[]}");

	CHECK(ranges_load_github_meta(p, lists443, 3, &l, &err) == -1 && strstr(err.msg, "api[0]") &&
	      strstr(err.msg, "wider than /8"), "%s", err.msg);
	p = write_tmp("seven.json", "{\"web\":[\"192.0.0.0/7\"],\"api\":[],\"git\":[]}");
	CHECK(ranges_load_github_meta(p, lists443, 3, &l, &err) == -1 && strstr(err.msg, "web[0]"), "%s", err.msg);
	p = write_tmp("eight.json", "{\"web\":[\"11.0.0.0/8\"],\"api\":[],\"git\":[]}");
	CHECK(ranges_load_github_meta(p, lists443, 3, &l, &err) == 0 && l.n == 1, "/8 is accepted");
	range_list_free(&l);
	p = write_tmp("array.json", "[\"192.0.2.0/24\"]");
	CHECK(ranges_load_github_meta(p, lists443, 3, &l, &err) == -1 && strstr(err.msg, "not a GitHub meta"), "%s", err.msg);
	p = write_tmp("hostbits.json", "{\"web\":[\"192.0.2.77/24\"],\"api\":[],\"git\":[\"198.51.100.9/31\"]}");
	CHECK(ranges_load_github_meta(p, lists443, 3, &l, &err) == 0, "host bits are masked, not refused");
	CHECK_LIST(l, A(192, 0, 2, 0), A(192, 0, 2, 255), A(198, 51, 100, 8), A(198, 51, 100, 9));
	range_list_free(&l);
	p = write_tmp("empty", "");
	CHECK(ranges_load_github_meta(p, lists443, 3, &l, &err) == -1 && strstr(err.msg, "not valid JSON"), "%s", err.msg);
	CHECK(ranges_load_github_meta(tmpdir, lists443, 3, &l, &err) == -1 && strstr(err.msg, "not a regular file"),
	      "%s", err.msg);
}

static void test_google(void)
{
	struct range_list goog, cloud, out;
	struct cs_error err = { 0 };

	CHECK(ranges_load_google(FIXTURES "/goog.json", &goog, &err) == 0, "%s", err.msg);
	CHECK_LIST(goog, A(192, 0, 2, 0), A(192, 0, 2, 255), A(198, 51, 100, 0), A(198, 51, 100, 255));
	CHECK(ranges_load_google(FIXTURES "/cloud.json", &cloud, &err) == 0, "%s", err.msg);
	CHECK_LIST(cloud, A(192, 0, 2, 128), A(192, 0, 2, 255), A(198, 51, 100, 64), A(198, 51, 100, 127));
	CHECK(range_list_subtract(&goog, &cloud, &out) == 0, "subtract");
	CHECK_LIST(out, A(192, 0, 2, 0), A(192, 0, 2, 127), A(198, 51, 100, 0), A(198, 51, 100, 63),
		   A(198, 51, 100, 128), A(198, 51, 100, 255));
	range_list_free(&goog);
	range_list_free(&cloud);
	range_list_free(&out);

	static const struct {
		const char *file, *want;
	} bad[] = {
		{ "bad/goog-no-key.json", "prefixes[1] has neither" },
		{ "bad/goog-bad-prefix.json", "prefixes[1] '198.51.100.0/024'" },
		{ "bad/goog-no-prefixes.json", "no \"prefixes\" list" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char path[256];

		snprintf(path, sizeof(path), FIXTURES "/%s", bad[i].file);
		memset(&err, 0, sizeof(err));
		CHECK(ranges_load_google(path, &goog, &err) == -1 && err.status == CS_EXIT_CONFIG, "%s accepted", bad[i].file);
		CHECK(strstr(err.msg, bad[i].want) && strstr(err.msg, bad[i].file + 4), "%s: '%s'", bad[i].file, err.msg);
	}
	const char *p = write_tmp("goog-str.json", "{\"prefixes\":[\"192.0.2.0/24\"]}");

	CHECK(ranges_load_google(p, &goog, &err) == -1 && strstr(err.msg, "prefixes[0] is not an object"), "%s", err.msg);
	p = write_tmp("goog-v4num.json", "{\"prefixes\":[{\"ipv4Prefix\":24}]}");
	CHECK(ranges_load_google(p, &goog, &err) == -1 && strstr(err.msg, "prefixes[0] is not a string"), "%s", err.msg);
	p = write_tmp("goog-dup.json", "{\"prefixes\":[],\"prefixes\":[]}");
	CHECK(ranges_load_google(p, &goog, &err) == -1 && strstr(err.msg, "line 1"), "duplicate keys refused: %s", err.msg);
	CHECK(ranges_load_google(FIXTURES "/absent.json", &goog, &err) == 1, "missing is 1");
}

int main(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/cs-ranges-XXXXXX");
	if (!mkdtemp(tmpdir))
		return 2;
	test_normalise();
	test_subtract();
	test_subtract_random();
	test_normalise_large();
	test_prefix();
	test_forbidden();
	test_github_meta();
	test_google();
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf -- '%s'", tmpdir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", tmpdir);
	}
	return check_done("profiles/ranges");
}
