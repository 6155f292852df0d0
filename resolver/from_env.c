#include "resolver/from_env.h"

#include <stdio.h>
#include <string.h>

#include "base/config.h"
#include "profiles/interactive.h"
#include "profiles/netinfo.h"

struct add_ctx {
	struct allowlist *al;
	struct cs_error *err;
};

static int add_one(void *ctx, const char *name, uint16_t port, bool internal, const char *origin)
{
	struct add_ctx *a = ctx;
	char spec[DNS_NAME_MAX + 8];

	(void)origin;
	snprintf(spec, sizeof(spec), "%s:%u", name, port);
	return allowlist_add(a->al, spec, internal, a->err) ? -1 : 0;
}

int resolver_names_from_env(struct allowlist *al, const char *command, char *const envp[],
			    uid_t trusted_uid, uint32_t *resolver_uid, struct cs_error *err)
{
	struct cs_config cfg;
	struct policy_env env = { .command = command, .trusted_uid = trusted_uid };
	struct add_ctx a = { al, err };
	int rc;

	if (config_load(envp, &cfg, err))
		return -1;
	if (!cfg.dns_pinned) {
		config_free(&cfg);
		return cs_fail(err, CS_EXIT_CONFIG, "--names-for reads the sandbox's configuration, which lacks CLI_SANDBOX_DNS=pinned; give the resolver the sandbox's CLI_SANDBOX_EGRESS_PROFILE=interactive, CLI_SANDBOX_DNS=pinned and CLI_SANDBOX_RESOLVER_UID");
	}
	*resolver_uid = cfg.resolver_uid;
	rc = interactive_names(&cfg, &env, add_one, &a, err);
	config_free(&cfg);
	if (rc == 0 && al->n == 0)
		return cs_fail(err, CS_EXIT_CONFIG, "the interactive profile allows no name for '%.64s'; add names with CLI_SANDBOX_ALLOW", command);
	return rc ? -1 : 0;
}

int resolver_upstreams_from_resolv_conf(const char *resolv_conf, const struct sockaddr_in *listen,
					struct sockaddr_in *out, size_t max, struct cs_error *err)
{
	uint32_t ns[8];
	int n = resolv_conf_nameservers(resolv_conf, ns, sizeof(ns) / sizeof(ns[0]), err);
	size_t k = 0;

	if (n < 0)
		return -1;
	for (int i = 0; i < n && k < max; i++) {
		if (htonl(ns[i]) == listen->sin_addr.s_addr)
			continue;
		memset(&out[k], 0, sizeof(out[k]));
		out[k].sin_family = AF_INET;
		out[k].sin_addr.s_addr = htonl(ns[i]);
		out[k].sin_port = htons(53);
		k++;
	}
	return (int)k;
}
