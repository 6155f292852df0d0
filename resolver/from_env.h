/* The pinning resolver's configuration from the sandbox's own environment,
 * so that nobody lists names by hand: the names come from the interactive
 * profile (profiles/interactive.h, the same walk the init's start-time
 * resolution uses), the upstream from resolv.conf (profiles/netinfo.h, the
 * one parser the init's DNS rules use), the uid from
 * CLI_SANDBOX_RESOLVER_UID. */
#ifndef CLI_SANDBOX_RESOLVER_FROM_ENV_H
#define CLI_SANDBOX_RESOLVER_FROM_ENV_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#include "base/status.h"
#include "resolver/allowlist.h"

/* Adds to al the names the interactive profile allows for command (a CLI's
 * name, or another command: every CLI's), read from envp as the init reads
 * it (config_load: CLI_SANDBOX_EGRESS_PROFILE=interactive,
 * TASK_AGENT_MODEL_BASE_URL, CLI_SANDBOX_ALLOW, CLI_SANDBOX_PROFILE_DIR,
 * CLI_SANDBOX_DNS=pinned with CLI_SANDBOX_RESOLVER_UID).  *resolver_uid gets
 * CLI_SANDBOX_RESOLVER_UID.  trusted_uid: besides root, the owner accepted
 * for the profile directory (0 in the image; tests pass their own).  0, or
 * -1 with err (78 for the configuration). */
int resolver_names_from_env(struct allowlist *al, const char *command, char *const envp[],
			    uid_t trusted_uid, uint32_t *resolver_uid, struct cs_error *err);

/* The IPv4 nameservers of resolv_conf as upstreams on port 53, at most max,
 * leaving out listen (the resolver itself: a query to it would loop).
 * Returns the count (0 when none is left), or -1 with err. */
int resolver_upstreams_from_resolv_conf(const char *resolv_conf, const struct sockaddr_in *listen,
					struct sockaddr_in *out, size_t max, struct cs_error *err);

#endif
