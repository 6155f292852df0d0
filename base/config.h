/* Environment -> validated configuration: the first pure stage.
 *
 * config_load() reads only the NULL-terminated "NAME=VALUE" array it is
 * given, so tests pass their own environments and nothing global is read. */
#ifndef CLI_SANDBOX_BASE_CONFIG_H
#define CLI_SANDBOX_BASE_CONFIG_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/allow.h"
#include "base/model_url.h"
#include "base/status.h"

/* The command when none is given (contract: COMMAND defaults to claude). */
#define CS_DEFAULT_COMMAND "claude"
#define CS_DEFAULT_USER "node"
#define CS_DEFAULT_PROFILE_DIR "/etc/cli-sandbox/profiles"
#define CS_USER_NAME_MAX 33
#define CS_ALLOW_TEXT_MAX 4096      /* CLI_SANDBOX_ALLOW, terminator included */
#define CS_DNS_UPSTREAM_MAX 3       /* CLI_SANDBOX_DNS_UPSTREAM: what libc uses, and the resolver takes */

enum cs_profile { CS_PROFILE_MANAGED, CS_PROFILE_INTERACTIVE };

/* CLI_SANDBOX_USER as written: a name, or uid[:gid]. */
struct user_spec {
	bool by_name;
	char name[CS_USER_NAME_MAX];
	uint32_t uid;
	bool has_gid;
	uint32_t gid;
};

struct cs_config {
	enum cs_profile profile;
	bool has_url;
	struct model_url url;
	bool allow_host_network;
	bool skip_firewall;
	bool allow_userns;              /* CLI_SANDBOX_ALLOW_USERNS=true: the seccomp filter allows user namespaces */
	struct user_spec user;
	bool has_allow;                 /* CLI_SANDBOX_ALLOW was set (interactive) */
	struct allow_entry *allow;      /* its entries, parsed (malloc'd: config_free) */
	size_t n_allow;
	bool dns_pinned;                /* CLI_SANDBOX_DNS=pinned (interactive): the pinning resolver owns DNS */
	uint32_t resolver_uid;          /* CLI_SANDBOX_RESOLVER_UID: its uid, never the command's */
	uint32_t dns_upstream[CS_DNS_UPSTREAM_MAX]; /* CLI_SANDBOX_DNS_UPSTREAM (pinned): the resolver's upstreams, host order */
	size_t n_dns_upstream;          /* 0: resolv.conf's nameservers are the upstreams */
	char profile_dir[PATH_MAX];
};

int config_load(char *const envp[], struct cs_config *cfg, struct cs_error *err);
/* Frees what config_load() allocated (the CLI_SANDBOX_ALLOW entries). */
void config_free(struct cs_config *cfg);

/* The value of NAME in envp, or NULL. */
const char *env_lookup(char *const envp[], const char *name);

const char *cs_profile_name(enum cs_profile p);

/* Parses CLI_SANDBOX_USER syntax (no lookup; see caps/user_db.h). */
int user_spec_parse(const char *s, struct user_spec *spec, struct cs_error *err);

#endif
