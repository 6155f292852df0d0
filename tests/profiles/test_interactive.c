/* The interactive policy, built from a real configuration (config_load), the
 * built-in or an override profile, fixture range files, resolv.conf and
 * route fixtures, and a fake, deterministic resolver. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/config.h"
#include "netfilter/ruleset_build.h"
#include "profiles/policy.h"
#include "check.h"

#define A(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (uint32_t)(d))

static const struct {
	const char *name;
	uint32_t addrs[3];
	size_t n;
} dns[] = {
	{ "api.anthropic.com", { A(192, 0, 2, 10) }, 1 },
	{ "claude.ai", { A(192, 0, 2, 12), A(192, 0, 2, 11) }, 2 },
	{ "statsig.anthropic.com", { A(127, 0, 0, 1), A(192, 0, 2, 13) }, 2 },
	{ "github.com", { A(192, 0, 2, 20) }, 1 },
	{ "api.openai.com", { A(198, 51, 100, 30) }, 1 },
	{ "model.test", { A(198, 51, 100, 40) }, 1 },
	{ "extra.test", { A(198, 51, 100, 50) }, 1 },
	{ "api.test", { A(192, 0, 2, 80) }, 1 },
	{ "metadata.test", { A(198, 51, 100, 60), A(169, 254, 169, 254) }, 2 },
	{ "loopback.test", { A(127, 0, 0, 1) }, 1 },
};

static size_t fake_resolve(const char *name, uint32_t *addrs, size_t max, void *ctx)
{
	if (ctx) {  /* a marker: the resolver was called (it runs in a child process) */
		FILE *f = fopen(ctx, "w");

		if (f)
			fclose(f);
	}
	for (size_t i = 0; i < sizeof(dns) / sizeof(dns[0]); i++)
		if (strcmp(dns[i].name, name) == 0) {
			size_t n = dns[i].n < max ? dns[i].n : max;

			memcpy(addrs, dns[i].addrs, n * sizeof(uint32_t));
			return n;
		}
	return 0;
}

static char dir[64];

static void put(const char *name, const char *text)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f))
		abort();
}

static void copy_fixture(const char *name)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "cp " FIXTURES "/%s '%s/'", name, dir);
	if (system(cmd))
		abort();
}

static void rm(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
}

static struct policy_env env_for(const char *command)
{
	return (struct policy_env){ .resolve = fake_resolve,
				    .resolv_conf = FIXTURES "/resolv.conf.docker",
				    .route_table = FIXTURES "/route.docker",
				    .command = command,
				    .trusted_uid = getuid() };  /* the test's own directories */
}

/* Builds the policy for an environment given as "NAME=VALUE" strings. */
static int build(char **envp, const struct policy_env *env, struct policy *p, struct cs_error *err)
{
	struct cs_config cfg;

	memset(err, 0, sizeof(*err));
	int rc;

	if (config_load(envp, &cfg, err))
		return -2;
	rc = policy_build(&cfg, env, p, err);
	config_free(&cfg);
	return rc;
}

static const struct policy_dest *find(const struct policy *p, const char *origin, uint16_t port)
{
	for (size_t i = 0; i < p->n_dests; i++)
		if (strcmp(p->dests[i].origin, origin) == 0 && p->dests[i].port == port)
			return &p->dests[i];
	return NULL;
}

static size_t count_prefix(const struct policy *p, const char *prefix)
{
	size_t n = 0;

	for (size_t i = 0; i < p->n_dests; i++)
		n += strncmp(p->dests[i].origin, prefix, strlen(prefix)) == 0;
	return n;
}

/* d has exactly the n (first, last) pairs */
static int ranges_are(const struct policy_dest *d, size_t n, const uint32_t *pairs)
{
	if (!d || d->n_ranges != n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (d->ranges[i].first != pairs[2 * i] || d->ranges[i].last != pairs[2 * i + 1])
			return 0;
	return 1;
}

#define CHECK_DEST(p, origin, port, ...)                                                      \
	do {                                                                                  \
		const uint32_t want_[] = { __VA_ARGS__ };                                     \
		const struct policy_dest *d_ = find(p, origin, port);                         \
		CHECK(ranges_are(d_, sizeof(want_) / sizeof(want_[0]) / 2, want_),            \
		      "%s port %u: %s, %zu ranges", origin, port, d_ ? "found" : "missing",     \
		      d_ ? d_->n_ranges : 0);                                                 \
	} while (0)

static char env_dir[128];

static void test_full(void)
{
	char *envp[] = { "CLI_SANDBOX_EGRESS_PROFILE=interactive", env_dir,
			 "TASK_AGENT_MODEL_BASE_URL=https://model.test:8443/v1",
			 "CLI_SANDBOX_ALLOW=extra.test:8080,198.51.100.0/25:9000,192.0.2.99,nowhere.test",
			 "CLI_SANDBOX_ALLOW_HOST_NETWORK=true", NULL };
	struct policy_env env = env_for("/usr/local/bin/claude");
	struct policy p;
	struct cs_error err;
	struct nf_ruleset rs;

	CHECK(build(envp, &env, &p, &err) == 0, "%s", err.msg);
	CHECK(p.firewall && p.profile == CS_PROFILE_INTERACTIVE, "firewall on");
	CHECK(p.n_resolvers == 1 && p.resolvers[0] == A(127, 0, 0, 11), "DNS only to Docker's resolver");
	CHECK(p.has_host_net && p.host_net_addr == A(192, 0, 2, 0) && p.host_net_len == 24, "host /24");

	CHECK_DEST(&p, "model endpoint (TASK_AGENT_MODEL_BASE_URL): model.test", 8443, A(198, 51, 100, 40), A(198, 51, 100, 40));
	CHECK_DEST(&p, "profile claude: api.anthropic.com", 443, A(192, 0, 2, 10), A(192, 0, 2, 10));
	CHECK_DEST(&p, "profile claude: claude.ai", 443, A(192, 0, 2, 11), A(192, 0, 2, 12));
	/* a name resolving to loopback: that address is dropped, the rest stays */
	CHECK_DEST(&p, "profile claude: statsig.anthropic.com", 443, A(192, 0, 2, 13), A(192, 0, 2, 13));
	/* a name that does not resolve: shown, with nothing allowed */
	CHECK(find(&p, "profile claude: platform.claude.com", 443) &&
	      find(&p, "profile claude: platform.claude.com", 443)->n_ranges == 0, "unresolved name opens nothing");
	CHECK_DEST(&p, "profile common: github.com", 443, A(192, 0, 2, 20), A(192, 0, 2, 20));
	CHECK_DEST(&p, "profile common: github.com", 22, A(192, 0, 2, 20), A(192, 0, 2, 20));
	/* only the running CLI's names */
	CHECK(count_prefix(&p, "profile codex:") == 0 && count_prefix(&p, "profile pi:") == 0, "claude only");
	CHECK(find(&p, "profile claude: api.openai.com", 443) == NULL, "no OpenAI for claude");

	CHECK_DEST(&p, "github-meta.json web+api+git (443)", 443, A(192, 0, 2, 0), A(192, 0, 2, 127),
		   A(198, 51, 100, 0), A(198, 51, 100, 127), A(198, 51, 100, 200), A(198, 51, 100, 207));
	CHECK_DEST(&p, "github-meta.json git (22)", 22, A(198, 51, 100, 0), A(198, 51, 100, 127),
		   A(198, 51, 100, 200), A(198, 51, 100, 207));
	CHECK_DEST(&p, "goog.json minus cloud.json (443)", 443, A(192, 0, 2, 0), A(192, 0, 2, 127),
		   A(198, 51, 100, 0), A(198, 51, 100, 63), A(198, 51, 100, 128), A(198, 51, 100, 255));
	CHECK(count_prefix(&p, "github-meta.json") == 2 && count_prefix(&p, "goog.json") == 1, "three range dests");

	CHECK_DEST(&p, "CLI_SANDBOX_ALLOW: extra.test:8080", 8080, A(198, 51, 100, 50), A(198, 51, 100, 50));
	CHECK_DEST(&p, "CLI_SANDBOX_ALLOW: 198.51.100.0/25:9000", 9000, A(198, 51, 100, 0), A(198, 51, 100, 127));
	CHECK_DEST(&p, "CLI_SANDBOX_ALLOW: 192.0.2.99", 443, A(192, 0, 2, 99), A(192, 0, 2, 99));
	CHECK(find(&p, "CLI_SANDBOX_ALLOW: nowhere.test", 443) && find(&p, "CLI_SANDBOX_ALLOW: nowhere.test", 443)->n_ranges == 0,
	      "unresolved ALLOW name opens nothing");

	/* every destination is TCP, and nothing is forbidden or wider than a provider /8 */
	for (size_t i = 0; i < p.n_dests; i++) {
		CHECK(p.dests[i].l4proto == 6, "%s: TCP", p.dests[i].origin);
		for (size_t k = 0; k < p.dests[i].n_ranges; k++)
			CHECK(p.dests[i].ranges[k].last - p.dests[i].ranges[k].first < (1u << 24),
			      "%s: range too wide", p.dests[i].origin);
	}

	/* the policy becomes a ruleset */
	CHECK(ruleset_build(&p, &rs, &err) == 0, "ruleset: %s", err.msg);
	CHECK(rs.n_sets >= 1, "interval sets: %zu", rs.n_sets);
	ruleset_free(&rs);
	policy_free(&p);
}

static void test_which_cli(void)
{
	char *envp[] = { "CLI_SANDBOX_EGRESS_PROFILE=interactive", env_dir, NULL };
	struct policy_env env = env_for("codex");
	struct policy p;
	struct cs_error err;

	CHECK(build(envp, &env, &p, &err) == 0, "%s", err.msg);
	CHECK_DEST(&p, "profile codex: api.openai.com", 443, A(198, 51, 100, 30), A(198, 51, 100, 30));
	CHECK(count_prefix(&p, "profile claude:") == 0 && count_prefix(&p, "profile pi:") == 0, "codex only");
	CHECK(count_prefix(&p, "profile common:") == 7, "common names: %zu", count_prefix(&p, "profile common:"));
	CHECK(count_prefix(&p, "model endpoint") == 0 && count_prefix(&p, "CLI_SANDBOX_ALLOW") == 0, "no URL, no ALLOW");
	CHECK(!p.has_host_net, "no host network unless asked");
	policy_free(&p);

	/* a command that is not a CLI of the profile (a shell): all of them,
	 * each name once, under the first section that lists it */
	env = env_for("/bin/bash");
	CHECK(build(envp, &env, &p, &err) == 0, "%s", err.msg);
	CHECK(count_prefix(&p, "profile claude:") == 5 && count_prefix(&p, "profile codex:") == 3, "claude and codex");
	CHECK(find(&p, "profile claude: api.anthropic.com", 443) && !find(&p, "profile pi: api.anthropic.com", 443),
	      "a shared name appears once");
	CHECK(find(&p, "profile pi: generativelanguage.googleapis.com", 443), "pi's own name");
	policy_free(&p);

	env.command = NULL;
	CHECK(build(envp, &env, &p, &err) == 0 && count_prefix(&p, "profile pi:") == 1, "no command: every CLI");
	policy_free(&p);
}

static void test_check_mode(void)
{
	char *envp[] = { "CLI_SANDBOX_EGRESS_PROFILE=interactive", env_dir,
			 "CLI_SANDBOX_ALLOW=extra.test,192.0.2.99", NULL };
	struct policy_env env = env_for("claude");
	struct policy p;
	struct cs_error err;

	/* --check resolves nothing, but reads and validates every file */
	env.resolve = NULL;
	CHECK(build(envp, &env, &p, &err) == 0, "%s", err.msg);
	for (size_t i = 0; i < p.n_dests; i++)
		if (strncmp(p.dests[i].origin, "profile", 7) == 0 || strstr(p.dests[i].origin, "extra.test"))
			CHECK(p.dests[i].n_ranges == 0, "%s resolved in --check", p.dests[i].origin);
	CHECK(find(&p, "goog.json minus cloud.json (443)", 443) != NULL, "ranges read");
	CHECK_DEST(&p, "CLI_SANDBOX_ALLOW: 192.0.2.99", 443, A(192, 0, 2, 99), A(192, 0, 2, 99));
	policy_free(&p);

	put("goog.json", "{\"prefixes\":[{\"ipv4Prefix\":\"192.0.2.0/24\"},{\"ipv4Prefix\":\"bad\"}]}");
	CHECK(build(envp, &env, &p, &err) == -1 && err.status == 78 && strstr(err.msg, "goog.json: prefixes[1] 'bad'"),
	      "--check validates range files: %s", err.msg);
	copy_fixture("goog.json");
}

/* Issue 11, finding 8: a gateway name that resolves to a forbidden
 * destination stops the start (78, naming the name and the address); the
 * profile's and the user's names keep warning and dropping. */
static void test_poisoned_gateway(void)
{
	char *meta[] = { "CLI_SANDBOX_EGRESS_PROFILE=interactive", env_dir,
			 "TASK_AGENT_MODEL_BASE_URL=http://metadata.test:8080", NULL };
	char *loop[] = { "CLI_SANDBOX_EGRESS_PROFILE=interactive", env_dir,
			 "TASK_AGENT_MODEL_BASE_URL=https://loopback.test", NULL };
	char *allow[] = { "CLI_SANDBOX_EGRESS_PROFILE=interactive", env_dir,
			  "CLI_SANDBOX_ALLOW=metadata.test", NULL };
	struct policy_env env = env_for("claude");
	struct policy p;
	struct cs_error err;

	CHECK(build(meta, &env, &p, &err) == -1 && err.status == 78 && strstr(err.msg, "metadata.test") &&
	      strstr(err.msg, "169.254.169.254"), "DNS result containing the metadata IP was accepted: %s", err.msg);
	CHECK(build(loop, &env, &p, &err) == -1 && err.status == 78 && strstr(err.msg, "127.0.0.1"),
	      "a gateway name resolving to loopback was accepted: %s", err.msg);
	CHECK(build(allow, &env, &p, &err) == 0, "CLI_SANDBOX_ALLOW names still warn and drop: %s", err.msg);
	if (err.status == 0)
		policy_free(&p);
}

static void test_skip(void)
{
	char *envp[] = { "CLI_SANDBOX_EGRESS_PROFILE=interactive", "SKIP_EGRESS_FIREWALL=true",
			 "CLI_SANDBOX_PROFILE_DIR=/nonexistent", NULL };
	char *bad[] = { "CLI_SANDBOX_EGRESS_PROFILE=interactive", "SKIP_EGRESS_FIREWALL=true",
			"CLI_SANDBOX_ALLOW=0.0.0.0/0", NULL };
	struct policy_env env = env_for("claude");
	struct policy p;
	struct cs_error err;

	CHECK(build(envp, &env, &p, &err) == 0 && !p.firewall && p.n_dests == 0 && p.n_resolvers == 0,
	      "skip: nothing read, nothing allowed: %s", err.msg);
	policy_free(&p);
	CHECK(build(bad, &env, &p, &err) == -2 && err.status == 78 && strstr(err.msg, "0.0.0.0/0"),
	      "a bad CLI_SANDBOX_ALLOW stops startup even without firewall, at the configuration stage (--check): %s", err.msg);
}

static void test_files(void)
{
	char *envp[] = { "CLI_SANDBOX_EGRESS_PROFILE=interactive", env_dir, NULL };
	char *host[] = { "CLI_SANDBOX_EGRESS_PROFILE=interactive", env_dir, "CLI_SANDBOX_ALLOW_HOST_NETWORK=true", NULL };
	char *nodir[] = { "CLI_SANDBOX_EGRESS_PROFILE=interactive", "CLI_SANDBOX_PROFILE_DIR=/nonexistent/cs", NULL };
	struct policy_env env = env_for("claude");
	struct policy p;
	struct cs_error err;

	/* cloud.json missing: goog.json alone would include Cloud customers, so it is not used */
	rm("cloud.json");
	CHECK(build(envp, &env, &p, &err) == 0 && count_prefix(&p, "goog.json") == 0 &&
	      count_prefix(&p, "github-meta.json") == 2, "no cloud.json: %s", err.msg);
	policy_free(&p);
	copy_fixture("cloud.json");

	/* a bad entry: 78, naming the file and the entry */
	copy_fixture("bad/github-meta-bad-entry.json");
	{
		char from[128], to[128];

		snprintf(from, sizeof(from), "%s/github-meta-bad-entry.json", dir);
		snprintf(to, sizeof(to), "%s/github-meta.json", dir);
		CHECK(rename(from, to) == 0, "rename");
	}
	{
		char marker[128];

		snprintf(marker, sizeof(marker), "%s/resolved", dir);
		env.resolve_ctx = marker;
		CHECK(build(envp, &env, &p, &err) == -1 && err.status == 78 && strstr(err.msg, "github-meta.json: git[1]") &&
		      strstr(err.msg, dir), "bad entry: %s", err.msg);
		CHECK(access(marker, F_OK) == -1, "a bad range file stops the start before any name is resolved");
		env.resolve_ctx = NULL;
	}
	copy_fixture("github-meta.json");

	/* forbidden blocks in a provider file are cut out, the rest is used */
	put("goog.json", "{\"prefixes\":[{\"ipv4Prefix\":\"192.0.2.0/24\"},{\"ipv4Prefix\":\"127.0.0.0/8\"},"
			 "{\"ipv4Prefix\":\"169.254.0.0/16\"}]}");
	CHECK(build(envp, &env, &p, &err) == 0, "%s", err.msg);
	CHECK_DEST(&p, "goog.json minus cloud.json (443)", 443, A(192, 0, 2, 0), A(192, 0, 2, 127));
	policy_free(&p);
	copy_fixture("goog.json");

	/* no range files at all, or no directory: warnings, the names still work */
	CHECK(build(nodir, &env, &p, &err) == 0 && count_prefix(&p, "github-meta.json") == 0 &&
	      find(&p, "profile claude: api.anthropic.com", 443), "no directory: %s", err.msg);
	policy_free(&p);

	/* host network without a default route: 78 */
	env.route_table = FIXTURES "/route.nodefault";
	CHECK(build(host, &env, &p, &err) == -1 && err.status == 78 && strstr(err.msg, "no default route"), "%s", err.msg);
	env.route_table = FIXTURES "/route.docker";

	/* no nameserver: DNS stays blocked, the start goes on */
	env.resolv_conf = FIXTURES "/resolv.conf.none";
	CHECK(build(envp, &env, &p, &err) == 0 && p.n_resolvers == 0, "%s", err.msg);
	policy_free(&p);
	env.resolv_conf = FIXTURES "/resolv.conf.mixed";
	CHECK(build(envp, &env, &p, &err) == 0 && p.n_resolvers == 2, "%s", err.msg);
	policy_free(&p);
}

static void test_override(void)
{
	char *envp[] = { "CLI_SANDBOX_EGRESS_PROFILE=interactive", env_dir, NULL };
	struct policy_env env = env_for("claude");
	struct policy p;
	struct cs_error err;

	put("interactive.json", "{\"version\":1,\"clis\":{\"claude\":{\"domains\":[{\"name\":\"api.test\",\"ports\":[443,8443]}]}}}");
	CHECK(build(envp, &env, &p, &err) == 0, "%s", err.msg);
	CHECK(p.n_dests == 2, "only the override's names: %zu", p.n_dests);
	CHECK_DEST(&p, "profile claude: api.test", 443, A(192, 0, 2, 80), A(192, 0, 2, 80));
	CHECK_DEST(&p, "profile claude: api.test", 8443, A(192, 0, 2, 80), A(192, 0, 2, 80));
	policy_free(&p);

	put("interactive.json", "{\"version\":1,\"clis\":{\"claude\":{\"domains\":[{\"name\":\"api.test\",\"ports\":[443]}]}}");
	CHECK(build(envp, &env, &p, &err) == -1 && err.status == 78 && strstr(err.msg, "interactive.json is not valid JSON"),
	      "%s", err.msg);
	rm("interactive.json");
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/cs-interactive-XXXXXX");
	if (!mkdtemp(dir))
		return 2;
	snprintf(env_dir, sizeof(env_dir), "CLI_SANDBOX_PROFILE_DIR=%s", dir);
	copy_fixture("github-meta.json");
	copy_fixture("goog.json");
	copy_fixture("cloud.json");

	test_full();
	test_which_cli();
	test_check_mode();
	test_skip();
	test_poisoned_gateway();
	test_files();
	test_override();
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf -- '%s'", dir);
		if (system(cmd))
			fprintf(stderr, "could not remove %s\n", dir);
	}
	return check_done("profiles/interactive");
}
