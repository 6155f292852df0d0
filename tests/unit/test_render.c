/* Golden tests of the three renderers of one model (nft text, nft JSON,
 * netlink expressions), the SHA-256 digest, and the plan's escaping.
 * UPDATE_GOLDEN=1 rewrites the golden files; review the diff before
 * committing it. */
#include <stdlib.h>

#include "base/sha256.h"
#include "entrypoint/pipeline.h"
#include "entrypoint/report.h"
#include "netfilter/render.h"
#include "netfilter/render_netlink.h"
#include "netfilter/ruleset_build.h"
#include "check.h"
#include "fixtures.h"

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0;

	if (!f)
		return NULL;
	if (getdelim(&buf, &len, '\0', f) < 0) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static void golden(const char *name, const char *got)
{
	char path[512];
	char *want;

	snprintf(path, sizeof(path), "%s/%s", GOLDEN_DIR, name);
	if (getenv("UPDATE_GOLDEN")) {
		FILE *f = fopen(path, "we");

		CHECK(f && fputs(got, f) >= 0 && fclose(f) == 0, "cannot write %s", path);
		return;
	}
	want = read_file(path);
	CHECK(want != NULL, "golden file %s missing (run with UPDATE_GOLDEN=1)", path);
	if (want)
		CHECK(strcmp(want, got) == 0, "%s differs from the renderer's output:\n%s", name, got);
	free(want);
}

static char *netlink_text(const struct nf_ruleset *rs)
{
	char *buf = NULL, one[4096];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	for (size_t c = 0; c < rs->n_chains; c++)
		for (size_t i = 0; i < rs->chains[c].n_rules; i++) {
			struct nftnl_rule *r = netlink_rule(rs, c, i);

			CHECK(r != NULL, "netlink_rule %zu/%zu", c, i);
			if (!r)
				continue;
			CHECK(netlink_rule_exprs_text(r, one, sizeof(one)) > 0, "exprs text");
			fprintf(f, "%s %zu\n%s\n", rs->chains[c].name, i + 1, one);
			nftnl_rule_free(r);
		}
	for (size_t s = 0; s < rs->n_sets; s++) {
		struct nftnl_set *set = netlink_set(rs, s, netlink_set_id(s));

		CHECK(set != NULL, "netlink_set %zu", s);
		if (!set)
			continue;
		nftnl_set_snprintf(one, sizeof(one), set, NFTNL_OUTPUT_DEFAULT, 0);
		fprintf(f, "%s\n", one);
		nftnl_set_free(set);
	}
	fclose(f);
	return buf;
}

static void render_all(const char *stem, struct policy *p)
{
	struct nf_ruleset rs;
	struct cs_error err;
	char name[64], *text, *nl, *js;
	json_t *j;

	CHECK(ruleset_build(p, &rs, &err) == 0, "%s: ruleset_build: %s", stem, err.msg);
	text = render_nft_string(&rs);
	j = render_json(&rs);
	js = j ? json_dumps(j, JSON_INDENT(1) | JSON_PRESERVE_ORDER) : NULL;
	nl = netlink_text(&rs);
	CHECK(text && js && nl, "%s: renderers returned NULL", stem);
	snprintf(name, sizeof(name), "%s.nft", stem);
	golden(name, text ? text : "");
	snprintf(name, sizeof(name), "%s.json", stem);
	golden(name, js ? js : "");
	snprintf(name, sizeof(name), "%s.netlink", stem);
	golden(name, nl ? nl : "");
	free(text);
	free(js);
	free(nl);
	json_decref(j);
	ruleset_free(&rs);
}

static void test_sha256_vectors(void)
{
	char hex[65], *million = malloc(1000000);

	sha256_hex("", 0, hex);
	CHECK_STR(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	sha256_hex("abc", 3, hex);
	CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56, hex);
	CHECK_STR(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	if (million) {
		memset(million, 'a', 1000000);
		sha256_hex(million, 1000000, hex);
		CHECK_STR(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
		/* fed in pieces of 1..127 bytes, across every block boundary */
		{
			struct sha256 st;
			size_t off = 0, piece = 1;

			sha256_init(&st);
			for (; off < 1000000; off += piece, piece = piece % 127 + 1)
				sha256_update(&st, million + off, off + piece > 1000000 ? 1000000 - off : piece);
			sha256_final_hex(&st, hex);
			CHECK_STR(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
		}
		/* the padding's edges: one block or two (values from Python's hashlib) */
		{
			static const struct { size_t len; const char *hex; } edge[] = {
				{ 55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318" },
				{ 56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a" },
				{ 63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34" },
				{ 64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb" },
				{ 119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb" },
				{ 120, "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c" },
				{ 121, "e9615320128cc7a3d6078e9af05603188e5ccbf0d07d8b735d3df5e8e0c1281f" },
			};

			for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++) {
				sha256_hex(million, edge[i].len, hex);
				CHECK_STR(hex, edge[i].hex);
			}
		}
	}
	free(million);
}

/* Both implementations (the SHA extensions where this CPU has them, and the
 * portable rounds) against the vectors, and against each other on random
 * inputs of random lengths fed in random pieces. */
static void test_sha256(void)
{
	unsigned seed = 99;
	uint8_t *buf = malloc(65536);
	int differ = 0;

	sha256_force_portable = true;
	test_sha256_vectors();
	sha256_force_portable = false;
	test_sha256_vectors();
	for (int round = 0; buf && round < 200; round++) {
		size_t len = (size_t)rand_r(&seed) % 65536;
		char fast[65], portable[65];

		for (size_t i = 0; i < len; i++)
			buf[i] = (uint8_t)rand_r(&seed);
		for (int k = 0; k < 2; k++) {
			struct sha256 st;
			size_t off = 0;

			sha256_force_portable = k;
			sha256_init(&st);
			while (off < len) {
				size_t piece = 1 + (size_t)rand_r(&seed) % 20000;

				piece = piece > len - off ? len - off : piece;
				sha256_update(&st, buf + off, piece);
				off += piece;
			}
			sha256_final_hex(&st, k ? portable : fast);
		}
		differ += strcmp(fast, portable) != 0;
	}
	sha256_force_portable = false;
	CHECK(buf && differ == 0, "SHA extensions and portable code agree on 200 random inputs (%d differ)", differ);
	free(buf);
}

/* A newline in an argument must not end a "#" comment in the dump, or an
 * attacker-chosen argument could add rules to what an operator loads. */
static void test_report_escaping(void)
{
	static struct pipeline pl = {
		.cfg = { .profile = CS_PROFILE_MANAGED },
		.user = { .name = "node", .uid = 1000, .gid = 1000, .home = "/home/node" },
	};
	struct cs_error err;
	char *const argv[] = { "claude", "x\ntable ip evil { }", NULL };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	pl.command.argv = (char **)argv;
	CHECK(fixture_managed(&pl.policy) == 0 && ruleset_build(&pl.policy, &pl.ruleset, &err) == 0, "build");
	CHECK(pipeline_digest(&pl, &err) == 0 && strlen(pl.digest) == 64, "digest");
	f = open_memstream(&buf, &len);
	CHECK(report_nft(&pl, f) == 0, "print");
	fclose(f);
	CHECK(strstr(buf, "\ntable ip evil") == NULL, "argument newline escaped");
	CHECK(strstr(buf, "x\\x0atable ip evil") != NULL, "escaped form present");
	/* Every line before the ruleset is a comment. */
	for (char *line = buf; line && *line && strncmp(line, "table inet", 10) != 0; line = strchr(line, '\n') + 1)
		CHECK(line[0] == '#', "non-comment plan line: %.40s", line);
	/* The digest printed equals the digest of the ruleset text printed. */
	{
		char hex[65], *ruleset = strstr(buf, "table inet cli_sandbox\n");

		CHECK(ruleset != NULL, "ruleset follows the plan");
		if (ruleset) {
			sha256_hex(ruleset, strlen(ruleset), hex);
			CHECK_STR(hex, pl.digest);
		}
	}
	free(buf);

	/* Bytes that are not UTF-8 still give valid JSON, escaped. */
	{
		char *const bad[] = { "bash", "a\xff\nb", NULL };
		json_t *j;

		pl.command.argv = (char **)bad;
		buf = NULL;
		f = open_memstream(&buf, &len);
		CHECK(report_json(&pl, f) == 0, "json plan with non-UTF-8 argument");
		fclose(f);
		j = json_loads(buf, 0, NULL);
		CHECK(j != NULL, "the JSON plan parses");
		CHECK(j && strcmp(json_string_value(json_array_get(json_object_get(json_object_get(j, "exec"), "argv"), 1)),
				  "a\\xff\\x0ab") == 0, "escaped argument");
		json_decref(j);
		free(buf);
	}
	pl.command.argv = NULL;  /* borrowed from this function */
	pipeline_free(&pl);
}

int main(void)
{
	struct policy p;

	test_sha256();
	test_report_escaping();
	CHECK(fixture_managed(&p) == 0, "fixture");
	render_all("managed", &p);
	policy_free(&p);
	CHECK(fixture_interactive(&p) == 0, "fixture");
	render_all("interactive", &p);
	policy_free(&p);
	/* CLI_SANDBOX_DNS=pinned: the same, with the pinning resolver's rules */
	CHECK(fixture_interactive(&p) == 0, "fixture");
	p.dns_pinned = true;
	p.resolver_uid = 999;
	render_all("pinned", &p);
	policy_free(&p);
	return check_done("test_render");
}
