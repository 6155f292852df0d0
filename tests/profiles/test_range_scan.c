/* The fast scanner of provider range files against jansson, the reference:
 * where it answers OK it must yield exactly the strings (and indices) the
 * jansson path reads; every document outside its plain case, and every
 * document jansson refuses, must fall back. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "profiles/range_scan.h"
#include "check.h"

/* What the jansson path reads: the ipv4Prefix strings of "prefixes", as
 * "index:string" joined by spaces; NULL when it would refuse or error. */
static char *google_reference(const char *doc, char *out, size_t cap)
{
	json_t *root = json_loads(doc, JSON_REJECT_DUPLICATES, NULL), *p, *e;
	size_t k, used = 0;

	out[0] = '\0';
	p = root ? json_object_get(root, "prefixes") : NULL;
	if (!json_is_array(p)) {
		json_decref(root);
		return NULL;
	}
	json_array_foreach(p, k, e) {
		json_t *v4 = json_object_get(e, "ipv4Prefix");

		if (!json_is_object(e) || (v4 && !json_is_string(v4)) ||
		    (!v4 && !json_is_string(json_object_get(e, "ipv6Prefix")))) {
			json_decref(root);
			return NULL;
		}
		if (v4)
			used += (size_t)snprintf(out + used, cap - used, "%zu:%s ", k, json_string_value(v4));
	}
	json_decref(root);
	return out;
}

static void scanned(const struct scan_list *l, char *out, size_t cap)
{
	size_t used = 0;

	out[0] = '\0';
	for (size_t i = 0; i < l->n; i++)
		used += (size_t)snprintf(out + used, cap - used, "%zu:%.*s ", l->v[i].index, (int)l->v[i].len, l->v[i].s);
}

static void test_google(void)
{
	static const struct { const char *doc; int fast; } cases[] = {
		{ "{\"prefixes\":[]}", 1 },
		{ "{\"syncToken\":\"1\",\"prefixes\":[{\"ipv4Prefix\":\"192.0.2.0/24\"},{\"ipv6Prefix\":\"2001:db8::/32\"},"
		  "{\"ipv4Prefix\":\"198.51.100.0/25\",\"service\":\"x\",\"n\":-12,\"t\":true,\"f\":false,\"z\":null,\"o\":{\"a\":[1,2]}}]}", 1 },
		{ " \n{ \"prefixes\" : [ { \"ipv4Prefix\" : \"192.0.2.1/32\" } ] } \n", 1 },
		{ "{\"prefixes\":[{\"ipv4Prefix\":\"192.0.2.0/24\",\"ipv4Prefix\":\"198.51.100.0/24\"}]}", 0 },  /* duplicate key */
		{ "{\"prefixes\":[],\"prefixes\":[]}", 0 },
		{ "{\"prefixes\":[{\"ipv4Prefix\":\"192.0.2.0\\/24\"}]}", 0 },  /* escape */
		{ "{\"prefixes\":[{\"ipv4Prefix\":\"192.0.2.0/24\",\"s\":\"caf\xc3\xa9\"}]}", 0 },  /* UTF-8 */
		{ "{\"prefixes\":[{\"ipv4Prefix\":12}]}", 0 },
		{ "{\"prefixes\":[{\"other\":\"x\"}]}", 0 },
		{ "{\"prefixes\":[\"192.0.2.0/24\"]}", 0 },
		{ "{\"prefixes\":{}}", 0 },
		{ "{\"other\":[]}", 0 },
		{ "[{\"prefixes\":[]}]", 0 },
		{ "{\"prefixes\":[]} x", 0 },
		{ "{\"prefixes\":[],}", 0 },
		{ "{\"prefixes\":[{\"ipv4Prefix\":\"192.0.2.0/24\"},]}", 0 },
		{ "{\"prefixes\":[], \"n\": 1.5}", 0 },
		{ "{\"prefixes\":[], \"n\": 01}", 0 },
		{ "{\"prefixes\":[], \"n\": 12345678901234567890}", 0 },
		{ "{\"prefixes\":[], \"n\": tru}", 0 },
		{ "{\"prefixes\":[{\"ipv4Prefix\":\"192.0.2.0/24\"}]", 0 },
		{ "", 0 },
		{ "{\"prefixes\":[], \"d\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}", 0 },
	};
	char want[512], got[512];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct scan_list l;
		enum range_scan_result r = range_scan_google(cases[i].doc, strlen(cases[i].doc), &l);
		const char *ref = google_reference(cases[i].doc, want, sizeof(want));

		CHECK((r == RANGE_SCAN_OK) == cases[i].fast, "case %zu: fast path %s", i, r == RANGE_SCAN_OK ? "taken" : "not taken");
		if (r == RANGE_SCAN_OK) {
			scanned(&l, got, sizeof(got));
			CHECK(ref != NULL, "case %zu: scanned a document jansson refuses", i);
			if (ref)
				CHECK_STR(got, ref);
			scan_list_free(&l);
		}
	}
}

static void test_github(void)
{
	static const char *const lists[] = { "web", "git", "api" };
	static const char ok[] = "{\"verifiable_password_authentication\":false,\"hooks\":[\"192.0.2.240/28\"],"
		"\"web\":[\"192.0.2.0/27\",\"2001:db8::/48\"],\"api\":[],\"git\":[\"198.51.100.0/25\"],"
		"\"domains\":{\"website\":[\"*.github.com\"]}}";
	struct scan_list out[3];
	char got[256];

	CHECK(range_scan_github(ok, strlen(ok), lists, 3, out) == RANGE_SCAN_OK, "meta document scanned");
	scanned(&out[0], got, sizeof(got));
	CHECK_STR(got, "0:192.0.2.0/27 1:2001:db8::/48 ");
	scanned(&out[1], got, sizeof(got));
	CHECK_STR(got, "0:198.51.100.0/25 ");
	CHECK(out[2].n == 0, "an empty list is there and empty");
	for (int i = 0; i < 3; i++)
		scan_list_free(&out[i]);
	/* left to jansson: a missing list, a non-string entry, a list that is
	 * not an array, a root that is not an object, a duplicate key */
	static const char *const fallback[] = {
		"{\"web\":[],\"git\":[]}",
		"{\"web\":[],\"git\":[1],\"api\":[]}",
		"{\"web\":[],\"git\":{},\"api\":[]}",
		"[]",
		"{\"web\":[],\"git\":[],\"api\":[],\"web\":[]}",
	};
	for (size_t i = 0; i < sizeof(fallback) / sizeof(fallback[0]); i++)
		CHECK(range_scan_github(fallback[i], strlen(fallback[i]), lists, 3, out) == RANGE_SCAN_FALLBACK,
		      "github case %zu falls back", i);
}

int main(void)
{
	test_google();
	test_github();
	return check_done("profiles/range_scan");
}
