/* Benchmark: the interactive profile with 50,000 CIDRs in its range files.
 *
 * Writes github-meta.json, goog.json and cloud.json in the providers'
 * formats into a temporary CLI_SANDBOX_PROFILE_DIR, then times the start's
 * stages: policy build (profile, range files, subtraction, a fake resolver),
 * ruleset build and, with --apply (run it inside a throwaway network
 * namespace), the real netlink load with its readback.  It prints figures;
 * it asserts only that every stage succeeds and the sets are non-empty.
 * usage: bench_profile [--apply] [N-CIDRS]   (default 50000) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/config.h"
#include "netfilter/apply.h"
#include "netfilter/ruleset_build.h"
#include "profiles/policy.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint32_t rng = 2463534242u;

/* A pseudo-random /16../32 prefix in 1.0.0.0-223.255.255.255, outside the
 * blocks no profile may allow; overlaps and adjacency happen and are meant. */
static void prefix(char *buf, size_t len)
{
	uint32_t a, plen;

	do {
		rng ^= rng << 13, rng ^= rng >> 17, rng ^= rng << 5;
		plen = 16 + rng % 17;
		a = (1u << 24) + rng % (223u << 24);
		a &= plen == 32 ? UINT32_MAX : ~(UINT32_MAX >> plen);
	} while ((a >> 24) == 127 || (a >> 24) == 169);
	snprintf(buf, len, "%u.%u.%u.%u/%u", a >> 24, (a >> 16) & 255, (a >> 8) & 255, a & 255, plen);
}

static FILE *create(const char *dir, const char *name)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	return f;
}

static void github_list(FILE *f, const char *name, size_t n, int last)
{
	char p[32];

	fprintf(f, "  \"%s\": [", name);
	for (size_t i = 0; i < n; i++) {
		prefix(p, sizeof(p));
		fprintf(f, "%s\"%s\"", i ? ", " : "", p);
	}
	fprintf(f, ", \"2001:db8::/32\"]%s\n", last ? "" : ",");
}

static void google_file(const char *dir, const char *name, size_t n, int cloud)
{
	FILE *f = create(dir, name);
	char p[32];

	fputs("{\n  \"syncToken\": \"1700000000000\",\n  \"creationTime\": \"2024-01-01T00:00:00\",\n  \"prefixes\": [", f);
	for (size_t i = 0; i < n; i++) {
		prefix(p, sizeof(p));
		fprintf(f, "%s{\n    \"ipv4Prefix\": \"%s\"%s\n  }", i ? ", " : "", p,
			cloud ? ",\n    \"service\": \"Google Cloud\",\n    \"scope\": \"bench\"" : "");
	}
	fputs(", {\n    \"ipv6Prefix\": \"2001:db8::/32\"\n  }]\n}\n", f);
	fclose(f);
}

static size_t fake_resolve(const char *name, uint32_t *addrs, size_t max, void *ctx)
{
	(void)ctx;
	(void)max;
	addrs[0] = 0xc0000200u | (uint32_t)(strlen(name) & 0x7f);  /* 192.0.2.x */
	return 1;
}

int main(int argc, char **argv)
{
	int apply = argc > 1 && strcmp(argv[1], "--apply") == 0;
	size_t n = argc > 1 + apply ? strtoul(argv[1 + apply], NULL, 10) : 50000;
	size_t gh = n * 6 / 10, goog = n * 3 / 10, cloud = n - gh - goog;
	char dir[] = "/tmp/cs-bench-XXXXXX", envdir[64], cmd[64];
	char *envp[] = { "CLI_SANDBOX_EGRESS_PROFILE=interactive", envdir, NULL };
	struct policy_env env = { .resolve = fake_resolve, .trusted_uid = getuid(), .resolv_conf = FIXTURES "/resolv.conf.docker",
				  .route_table = FIXTURES "/route.docker", .command = "claude" };
	struct cs_config cfg;
	struct cs_error err = { 0 };
	struct policy p;
	struct nf_ruleset rs;
	size_t elems = 0;
	int ok;
	double t0, t1, t2, t3;
	FILE *f;

	if (!mkdtemp(dir))
		return 1;
	snprintf(envdir, sizeof(envdir), "CLI_SANDBOX_PROFILE_DIR=%s", dir);
	f = create(dir, "github-meta.json");
	fputs("{\n  \"verifiable_password_authentication\": false,\n", f);
	github_list(f, "web", gh / 3, 0);
	github_list(f, "api", gh / 3, 0);
	github_list(f, "git", gh - 2 * (gh / 3), 1);
	fputs("}\n", f);
	fclose(f);
	google_file(dir, "goog.json", goog, 0);
	google_file(dir, "cloud.json", cloud, 1);

	t0 = now();
	if (config_load(envp, &cfg, &err) || policy_build(&cfg, &env, &p, &err)) {
		fprintf(stderr, "policy build failed: %s\n", err.msg);
		return 1;
	}
	t1 = now();
	if (ruleset_build(&p, &rs, &err)) {
		fprintf(stderr, "ruleset build failed: %s\n", err.msg);
		return 1;
	}
	t2 = now();
	for (size_t i = 0; i < rs.n_sets; i++)
		elems += rs.sets[i].n_elems;
	if (apply && firewall_apply(&rs, &(bool){ false }, &err)) {
		fprintf(stderr, "netlink apply failed: %s\n", err.msg);
		return 1;
	}
	t3 = now();
	printf("bench: cidrs=%zu (github-meta %zu, goog %zu, cloud %zu) sets=%zu set_ranges=%zu\n",
	       n, gh, goog, cloud, rs.n_sets, elems);
	printf("bench: policy_build_ms=%.1f ruleset_build_ms=%.1f netlink_apply_ms=%s",
	       (t1 - t0) * 1e3, (t2 - t1) * 1e3, apply ? "" : "skipped\n");
	if (apply)
		printf("%.1f\n", (t3 - t2) * 1e3);
	printf("bench: total_ms=%.1f\n", (t3 - t0) * 1e3);
	ok = rs.n_sets > 0 && elems > 0;
	ruleset_free(&rs);
	policy_free(&p);
	config_free(&cfg);
	snprintf(cmd, sizeof(cmd), "rm -rf -- '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", dir);
	return ok ? 0 : 1;
}
