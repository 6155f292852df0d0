/* The profile format: the built-in profile is valid and says what the docs
 * say; malformed profiles are refused with the key path; an override file
 * replaces the built-in profile. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profiles/profile.h"
#include "check.h"

static int has_domain(const struct profile_section *s, const char *name, uint16_t port)
{
	for (size_t i = 0; s && i < s->n_domains; i++)
		if (strcmp(s->domains[i].name, name) == 0)
			for (size_t k = 0; k < s->domains[i].n_ports; k++)
				if (s->domains[i].ports[k] == port)
					return 1;
	return 0;
}

static void test_builtin(void)
{
	struct profile p;
	struct cs_error err = { 0 };
	const struct profile_section *c;

	CHECK(profile_builtin_json_len == strlen(profile_builtin_json), "embedded length %zu", profile_builtin_json_len);
	CHECK(profile_parse(profile_builtin_json, profile_builtin_json_len, "built-in profile", &p, &err) == 0, "%s", err.msg);
	CHECK(p.n_sections == 6, "common + 5 CLIs, got %zu", p.n_sections);
	CHECK(profile_cli(&p, "gemini") && has_domain(profile_cli(&p, "gemini"), "generativelanguage.googleapis.com", 443) &&
	      profile_cli(&p, "opencode") && has_domain(profile_cli(&p, "opencode"), "api.anthropic.com", 443), "gemini and opencode reach their APIs");
	CHECK_STR(p.sections[0].name, "common");

	c = &p.sections[0];
	CHECK(has_domain(c, "github.com", 443) && has_domain(c, "github.com", 22), "github.com 443+22");
	CHECK(has_domain(c, "api.github.com", 443) && has_domain(c, "codeload.github.com", 443) &&
	      has_domain(c, "objects.githubusercontent.com", 443), "GitHub hosts");
	CHECK(c->n_ranges == 3, "three range sources");
	CHECK(c->ranges[0].format == PROFILE_RANGES_GITHUB_META && strcmp(c->ranges[0].file, "github-meta.json") == 0 &&
	      c->ranges[0].n_lists == 3 && c->ranges[0].ports[0] == 443, "github 443 web+api+git");
	CHECK(c->ranges[1].n_lists == 1 && strcmp(c->ranges[1].lists[0], "git") == 0 &&
	      c->ranges[1].n_ports == 1 && c->ranges[1].ports[0] == 22, "ssh only to git");
	CHECK(c->ranges[2].format == PROFILE_RANGES_GOOGLE && strcmp(c->ranges[2].file, "goog.json") == 0 &&
	      strcmp(c->ranges[2].minus, "cloud.json") == 0, "goog minus cloud");

	c = profile_cli(&p, "claude");
	CHECK(has_domain(c, "api.anthropic.com", 443) && has_domain(c, "claude.ai", 443) &&
	      has_domain(c, "platform.claude.com", 443) && has_domain(c, "console.anthropic.com", 443), "claude");
	CHECK(!has_domain(c, "api.openai.com", 443) && !has_domain(c, "registry.npmjs.org", 443), "claude is narrow");
	c = profile_cli(&p, "codex");
	CHECK(has_domain(c, "api.openai.com", 443) && has_domain(c, "auth.openai.com", 443) &&
	      has_domain(c, "chatgpt.com", 443), "codex");
	CHECK(!has_domain(c, "api.anthropic.com", 443), "codex is narrow");
	c = profile_cli(&p, "pi");
	CHECK(has_domain(c, "api.anthropic.com", 443) && has_domain(c, "api.openai.com", 443) &&
	      has_domain(c, "generativelanguage.googleapis.com", 443), "pi");
	CHECK(profile_cli(&p, "common") == NULL && profile_cli(&p, "bash") == NULL, "no other sections");
	/* no CLI needs the npm registry at run time */
	for (size_t s = 0; s < p.n_sections; s++)
		CHECK(!has_domain(&p.sections[s], "registry.npmjs.org", 443), "npm in %s", p.sections[s].name);
	profile_free(&p);
}

static void test_invalid(void)
{
	static const struct {
		const char *json, *want;
	} cases[] = {
		{ "", "not valid JSON: line" },
		{ "[]", "not a JSON object" },
		{ "{}", "version must be 1" },
		{ "{\"version\":2}", "version must be 1" },
		{ "{\"version\":\"1\"}", "version must be 1" },
		{ "{\"version\":1,\"extra\":1}", "extra is not a known key" },
		{ "{\"version\":1,\"comment\":5}", "comment is not a string" },
		{ "{\"version\":1,\"version\":1}", "not valid JSON" },
		{ "{\"version\":1,\"clis\":[]}", "clis is not an object" },
		{ "{\"version\":1,\"clis\":{\"Claude\":{}}}", "clis.Claude is not a usable command name" },
		{ "{\"version\":1,\"clis\":{\"common\":{}}}", "clis.common is not a usable command name" },
		{ "{\"version\":1,\"clis\":{\"a/b\":{}}}", "not a usable command name" },
		{ "{\"version\":1,\"clis\":{\"x\":{\"domain\":[]}}}", "clis.x.domain is not a known key" },
		{ "{\"version\":1,\"clis\":{\"x\":{\"domains\":{}}}}", "clis.x.domains is not a list" },
		{ "{\"version\":1,\"clis\":{\"x\":{\"domains\":[{\"name\":\"a.example\"}]}}}", "clis.x.domains[0].ports must be a list" },
		{ "{\"version\":1,\"clis\":{\"x\":{\"domains\":[{\"name\":\"a.example\",\"ports\":[]}]}}}", "ports must be a list of 1 to 8" },
		{ "{\"version\":1,\"common\":{\"domains\":[{\"name\":\"a.example\",\"ports\":[443]},{\"name\":\"A.example\",\"ports\":[443]}]}}", "common.domains[1].name has a character outside" },
		{ "{\"version\":1,\"common\":{\"domains\":[{\"name\":\"a..example\",\"ports\":[443]}]}}", "common.domains[0].name is not a valid DNS name" },
		{ "{\"version\":1,\"common\":{\"domains\":[{\"name\":\"a.example.\",\"ports\":[443]}]}}", "is not a valid DNS name" },
		{ "{\"version\":1,\"common\":{\"domains\":[{\"name\":\"a.example\",\"ports\":[0]}]}}", "common.domains[0].ports[0] is not a port" },
		{ "{\"version\":1,\"common\":{\"domains\":[{\"name\":\"a.example\",\"ports\":[443,65536]}]}}", "ports[1] is not a port" },
		{ "{\"version\":1,\"common\":{\"domains\":[{\"name\":\"a.example\",\"ports\":[\"443\"]}]}}", "ports[0] is not a port" },
		{ "{\"version\":1,\"common\":{\"domains\":[{\"name\":\"a.example\",\"ports\":[53]}]}}", "port 53" },
		{ "{\"version\":1,\"common\":{\"domains\":[{\"name\":\"a.example\",\"ports\":[443],\"port\":1}]}}", "domains[0].port is not a known key" },
		{ "{\"version\":1,\"common\":{\"domains\":[\"a.example\"]}}", "domains[0] is not an object" },
		{ "{\"version\":1,\"common\":{\"ranges\":[{\"file\":\"../x.json\",\"format\":\"google\",\"ports\":[443]}]}}", "common.ranges[0].file has a character outside" },
		{ "{\"version\":1,\"common\":{\"ranges\":[{\"file\":\".x.json\",\"format\":\"google\",\"ports\":[443]}]}}", "plain file name" },
		{ "{\"version\":1,\"common\":{\"ranges\":[{\"file\":\"x.json\",\"format\":\"aws\",\"ports\":[443]}]}}", "ranges[0].format must be" },
		{ "{\"version\":1,\"common\":{\"ranges\":[{\"file\":\"x.json\",\"format\":\"github-meta\",\"ports\":[443]}]}}", "ranges[0].lists must list" },
		{ "{\"version\":1,\"common\":{\"ranges\":[{\"file\":\"x.json\",\"format\":\"github-meta\",\"lists\":[\"Web\"],\"ports\":[443]}]}}", "lists[0] has a character" },
		{ "{\"version\":1,\"common\":{\"ranges\":[{\"file\":\"x.json\",\"format\":\"google\",\"lists\":[\"web\"],\"ports\":[443]}]}}", "github-meta format only" },
		{ "{\"version\":1,\"common\":{\"ranges\":[{\"file\":\"x.json\",\"format\":\"google\",\"minus\":\"a/b\",\"ports\":[443]}]}}", "ranges[0].minus has a character" },
		{ "{\"version\":1,\"common\":{\"ranges\":[{\"file\":\"x.json\",\"format\":\"google\"}]}}", "ranges[0].ports must be" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct profile p;
		struct cs_error err = { 0 };
		int rc = profile_parse(cases[i].json, strlen(cases[i].json), "test profile", &p, &err);

		CHECK(rc == -1 && err.status == 78, "[%zu] accepted: %s", i, cases[i].json);
		CHECK(strstr(err.msg, cases[i].want) && strncmp(err.msg, "test profile", 12) == 0,
		      "[%zu] '%s' lacks '%s'", i, err.msg, cases[i].want);
		CHECK(p.sections == NULL && p.n_sections == 0, "[%zu] freed", i);
		if (rc == 0)
			profile_free(&p);
	}

	/* minimal valid profiles */
	struct profile p;
	struct cs_error err = { 0 };

	CHECK(profile_parse("{\"version\":1}", 13, "t", &p, &err) == 0 && p.n_sections == 1 &&
	      p.sections[0].n_domains == 0, "empty profile: %s", err.msg);
	profile_free(&p);
	const char *one = "{\"version\":1,\"clis\":{\"my-cli.2\":{\"domains\":[{\"name\":\"api.example\",\"ports\":[8443,443],\"why\":\"w\"}]}}}";

	CHECK(profile_parse(one, strlen(one), "t", &p, &err) == 0 && p.n_sections == 2 &&
	      profile_cli(&p, "my-cli.2") && profile_cli(&p, "my-cli.2")->domains[0].ports[0] == 8443, "one CLI: %s", err.msg);
	profile_free(&p);
}

static void test_override(void)
{
	char dir[] = "/tmp/cs-profile-XXXXXX", path[64];
	struct profile p;
	struct cs_error err = { 0 };
	FILE *f;

	if (!mkdtemp(dir))
		abort();
	/* no file: the built-in profile */
	CHECK(profile_load(dir, &p, &err) == 0 && strcmp(p.source, "built-in profile") == 0 && p.n_sections == 6,
	      "built-in: %s", err.msg);
	profile_free(&p);

	snprintf(path, sizeof(path), "%s/" PROFILE_OVERRIDE_FILE, dir);
	f = fopen(path, "w");
	fputs("{\"version\":1,\"clis\":{\"claude\":{\"domains\":[{\"name\":\"api.test\",\"ports\":[443]}]}}}\n", f);
	fclose(f);
	CHECK(profile_load(dir, &p, &err) == 0 && strcmp(p.source, path) == 0 && p.n_sections == 2 &&
	      p.sections[0].n_domains == 0 && p.sections[0].n_ranges == 0 &&
	      strcmp(profile_cli(&p, "claude")->domains[0].name, "api.test") == 0,
	      "override replaces the built-in profile as a whole: %s", err.msg);
	profile_free(&p);

	f = fopen(path, "w");
	fputs("{\"version\":1,\n \"clis\":{\"claude\":{\"domains\":[{\"name\":\"api.test\",\"ports\":[443]}]}}},\n", f);
	fclose(f);
	CHECK(profile_load(dir, &p, &err) == -1 && err.status == 78 && strstr(err.msg, path) && strstr(err.msg, "line 2"),
	      "malformed override: %s", err.msg);
	f = fopen(path, "w");
	fputs("{\"version\":1,\"clis\":{\"claude\":{\"domains\":[{\"name\":\"api.test\",\"ports\":[99999]}]}}}\n", f);
	fclose(f);
	CHECK(profile_load(dir, &p, &err) == -1 && strstr(err.msg, path) && strstr(err.msg, "clis.claude.domains[0].ports[0]"),
	      "invalid override: %s", err.msg);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	test_builtin();
	test_invalid();
	test_override();
	return check_done("profiles/profile");
}
