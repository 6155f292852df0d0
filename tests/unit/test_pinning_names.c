/* The pinning resolver's names from the sandbox's own environment
 * (resolver/from_env.h, profiles' interactive_names()): the names the init
 * resolves at start for the same configuration, each with its ports, the
 * endpoint's and CLI_SANDBOX_ALLOW's declared internal, the profile's not;
 * the upstreams from resolv.conf without the resolver's own address. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/config.h"
#include "check.h"
#include "profiles/interactive.h"
#include "resolver/from_env.h"

static char dir[64], log_path[96], pdir_var[96];

static int load(const char *command, const char *url, const char *allow, bool pinned,
		struct allowlist *al, uint32_t *r_uid, struct cs_error *err)
{
	char url_var[160], allow_var[160];
	char *envp[8];
	size_t n = 0;

	envp[n++] = "CLI_SANDBOX_EGRESS_PROFILE=interactive";
	envp[n++] = pdir_var;
	if (pinned) {
		envp[n++] = "CLI_SANDBOX_DNS=pinned";
		envp[n++] = "CLI_SANDBOX_RESOLVER_UID=1003";
	}
	if (url) {
		snprintf(url_var, sizeof(url_var), "TASK_AGENT_MODEL_BASE_URL=%s", url);
		envp[n++] = url_var;
	}
	if (allow) {
		snprintf(allow_var, sizeof(allow_var), "CLI_SANDBOX_ALLOW=%s", allow);
		envp[n++] = allow_var;
	}
	envp[n] = NULL;
	memset(al, 0, sizeof(*al));
	memset(err, 0, sizeof(*err));
	return resolver_names_from_env(al, command, envp, getuid(), r_uid, err);
}

/* name has exactly these ports (in any order) and this internal flag */
static bool has(const struct allowlist *al, const char *name, bool internal, size_t n, const uint16_t *ports)
{
	const struct pin_name *p = allowlist_find(al, name);

	if (!p || p->internal != internal || p->n_ports != n)
		return false;
	for (size_t i = 0; i < n; i++) {
		bool found = false;

		for (size_t k = 0; k < p->n_ports; k++)
			found = found || p->ports[k] == ports[i];
		if (!found)
			return false;
	}
	return true;
}
#define HAS(al, name, internal, ...)                                                          \
	has(al, name, internal, sizeof((uint16_t[]){ __VA_ARGS__ }) / sizeof(uint16_t), (uint16_t[]){ __VA_ARGS__ })

/* The resolve function of the init's start-time resolution, logging each
 * name asked (it runs in a child: one line per name, appended). */
static size_t logging_resolve(const char *name, uint32_t *addrs, size_t max, void *ctx)
{
	int fd = open(ctx, O_WRONLY | O_APPEND | O_CREAT, 0600);

	(void)addrs;
	(void)max;
	if (fd >= 0) {
		dprintf(fd, "%s\n", name);
		close(fd);
	}
	return 0;
}

/* Every name the init's start resolves for command is one the resolver
 * answers, and the other way round. */
static bool same_as_start(const char *command, const char *url, const char *allow)
{
	struct allowlist al;
	struct cs_error err;
	struct cs_config cfg;
	struct policy p;
	uint32_t r_uid;
	char url_var[160], allow_var[160], line[300];
	char *envp[] = { "CLI_SANDBOX_EGRESS_PROFILE=interactive", pdir_var, url_var, allow_var, NULL };
	struct policy_env env = { .resolve = logging_resolve, .resolve_ctx = log_path,
				  .resolv_conf = FIXTURES "/resolv.conf.docker", .route_table = FIXTURES "/route.docker",
				  .command = command, .trusted_uid = getuid() };
	size_t asked = 0;
	bool ok = true;
	FILE *f;

	snprintf(url_var, sizeof(url_var), "TASK_AGENT_MODEL_BASE_URL=%s", url);
	snprintf(allow_var, sizeof(allow_var), "CLI_SANDBOX_ALLOW=%s", allow);
	unlink(log_path);
	if (config_load(envp, &cfg, &err))
		return false;
	policy_init(&p, cfg.profile);
	if (interactive_policy(&cfg, &env, &p, &err)) {
		printf("# %s\n", err.msg);
		ok = false;
	}
	policy_free(&p);
	config_free(&cfg);
	if (!ok || load(command, url, allow, true, &al, &r_uid, &err))
		return false;
	f = fopen(log_path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		asked++;
		if (!allowlist_find(&al, line)) {
			printf("# the start resolves %s, the resolver would not answer it\n", line);
			ok = false;
		}
	}
	if (f)
		fclose(f);
	if (asked != al.n) {
		printf("# the start resolves %zu names, the resolver answers %zu\n", asked, al.n);
		ok = false;
	}
	allowlist_free(&al);
	return ok && asked > 0;
}

int main(void)
{
	struct allowlist al;
	struct cs_error err;
	uint32_t r_uid = 0;
	struct sockaddr_in listen = { .sin_family = AF_INET, .sin_port = htons(53), .sin_addr.s_addr = htonl(0x7f000001) };
	struct sockaddr_in up[3];
	char path[128];
	FILE *f;
	int n;

	snprintf(dir, sizeof(dir), "/tmp/cs-pinning-names.XXXXXX");
	if (!mkdtemp(dir) || chmod(dir, 0755))
		return 1;
	snprintf(pdir_var, sizeof(pdir_var), "CLI_SANDBOX_PROFILE_DIR=%s", dir);
	snprintf(log_path, sizeof(log_path), "%s/asked", dir);

	/* claude, the built-in profile, an endpoint by name and the person's own */
	CHECK_NAMED("claude: names from the environment", load("claude", "https://model.test:8443/v1", "extra.test:8080,192.0.2.5:443", true, &al, &r_uid, &err) == 0, "%s", err.msg);
	CHECK_NAMED("claude: the resolver's uid is CLI_SANDBOX_RESOLVER_UID", r_uid == 1003, "%s", err.msg);
	CHECK_NAMED("claude: api.anthropic.com:443, public only", HAS(&al, "api.anthropic.com", false, 443), "%s", err.msg);
	CHECK_NAMED("claude: common's github.com on 443 and 22", HAS(&al, "github.com", false, 443, 22), "%s", err.msg);
	CHECK_NAMED("claude: the endpoint's host on its port, internal", HAS(&al, "model.test", true, 8443), "%s", err.msg);
	CHECK_NAMED("claude: CLI_SANDBOX_ALLOW's name on its port, internal", HAS(&al, "extra.test", true, 8080), "%s", err.msg);
	CHECK_NAMED("claude: not codex's api.openai.com", !allowlist_find(&al, "api.openai.com"), "%s", err.msg);
	CHECK_NAMED("claude: no address of CLI_SANDBOX_ALLOW becomes a name", !allowlist_find(&al, "192.0.2.5"), "%s", err.msg);
	allowlist_free(&al);

	/* codex by its path: the basename counts, as for the init */
	CHECK_NAMED("/usr/local/bin/codex: names", load("/usr/local/bin/codex", NULL, NULL, true, &al, &r_uid, &err) == 0, "%s", err.msg);
	CHECK_NAMED("codex: api.openai.com, not api.anthropic.com", HAS(&al, "api.openai.com", false, 443) && !allowlist_find(&al, "api.anthropic.com"), "%s", err.msg);
	allowlist_free(&al);

	/* a shell may start any CLI: every CLI's names */
	CHECK_NAMED("bash: names", load("bash", NULL, NULL, true, &al, &r_uid, &err) == 0, "%s", err.msg);
	CHECK_NAMED("bash: every CLI's names (claude's, codex's, gemini's)",
		    allowlist_find(&al, "api.anthropic.com") && allowlist_find(&al, "api.openai.com") &&
		    allowlist_find(&al, "cloudcode-pa.googleapis.com"), "%s", err.msg);
	allowlist_free(&al);

	/* an endpoint given by address adds no name */
	CHECK_NAMED("an endpoint by address: no name for it", load("pi", "http://192.0.2.7:8080", NULL, true, &al, &r_uid, &err) == 0 &&
		    !allowlist_find(&al, "192.0.2.7") && allowlist_find(&al, "generativelanguage.googleapis.com"), "%s", err.msg);
	allowlist_free(&al);

	/* refusals */
	n = load("claude", NULL, NULL, false, &al, &r_uid, &err);
	CHECK_NAMED("without CLI_SANDBOX_DNS=pinned: 78, naming it", n != 0 && err.status == CS_EXIT_CONFIG && strstr(err.msg, "CLI_SANDBOX_DNS=pinned"), "%s", err.msg);
	allowlist_free(&al);

	/* the same profile as the init: an override in the directory wins */
	snprintf(path, sizeof(path), "%s/interactive.json", dir);
	f = fopen(path, "w");
	if (!f || fputs("{ \"version\": 1, \"common\": { \"domains\": [ { \"name\": \"only.test\", \"ports\": [ 443, 8443 ] } ] } }\n", f) < 0 || fclose(f))
		return 1;
	CHECK_NAMED("an override profile: its names alone", load("claude", NULL, NULL, true, &al, &r_uid, &err) == 0 &&
		    al.n == 1 && HAS(&al, "only.test", false, 443, 8443), "%s (%zu names)", err.msg, al.n);
	allowlist_free(&al);
	chmod(path, 0666);
	n = load("claude", NULL, NULL, true, &al, &r_uid, &err);
	CHECK_NAMED("an override others may write: refused as the init refuses it (78)", n != 0 && err.status == CS_EXIT_CONFIG, "%s", err.msg);
	allowlist_free(&al);
	unlink(path);

	/* no drift: the start's names are the resolver's, for three commands */
	CHECK_NAMED("claude: the names the init resolves at start are the resolver's",
		    same_as_start("claude", "https://model.test:8443/v1", "extra.test:8080"), "%s", err.msg);
	CHECK_NAMED("codex: the same", same_as_start("codex", "http://gw.test:4000", "a.test,b.test:22"), "%s", err.msg);
	CHECK_NAMED("bash: the same", same_as_start("bash", "http://gw.test:4000", "a.test"), "%s", err.msg);

	/* upstreams */
	n = resolver_upstreams_from_resolv_conf(FIXTURES "/resolv.conf.docker", &listen, up, 3, &err);
	CHECK_NAMED("Docker's resolv.conf: the embedded resolver 127.0.0.11:53", n == 1 && up[0].sin_addr.s_addr == htonl(0x7f00000b) && up[0].sin_port == htons(53), "%s", err.msg);
	snprintf(path, sizeof(path), "%s/resolv.conf", dir);
	f = fopen(path, "w");
	if (!f || fputs("nameserver 127.0.0.1\nnameserver 192.0.2.53\n", f) < 0 || fclose(f))
		return 1;
	n = resolver_upstreams_from_resolv_conf(path, &listen, up, 3, &err);
	CHECK_NAMED("its own address is never an upstream (a loop)", n == 1 && up[0].sin_addr.s_addr == htonl(0xc0000235), "%s", err.msg);
	f = fopen(path, "w");
	if (!f || fputs("nameserver 127.0.0.1\n", f) < 0 || fclose(f))
		return 1;
	CHECK_NAMED("only itself: no upstream", resolver_upstreams_from_resolv_conf(path, &listen, up, 3, &err) == 0, "%s", err.msg);
	unlink(path);
	unlink(log_path);
	rmdir(dir);
	return check_done("pinning names");
}
