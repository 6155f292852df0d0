/* The policy as data: what the sandbox may reach, and why, and what a
 * profile needs from the outside world to build it.  Below both builders
 * (policy.c for the managed profile and the choice, interactive.c), so that
 * neither includes the other's header. */
#ifndef CLI_SANDBOX_POLICY_MODEL_H
#define CLI_SANDBOX_POLICY_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/config.h"
#include "base/ipv4.h"
#include "base/status.h"
#include "profiles/lookup.h"

#define POLICY_ORIGIN_MAX 160
#define POLICY_MAX_RESOLVERS 8

/* One allowed egress: l4proto to these address ranges on one port. */
struct policy_dest {
	uint8_t l4proto;             /* IPPROTO_TCP or IPPROTO_UDP */
	uint16_t port;
	struct ipv4_range *ranges;
	size_t n_ranges;
	char origin[POLICY_ORIGIN_MAX];
};

struct policy {
	enum cs_profile profile;
	bool firewall;                         /* false only for SKIP_EGRESS_FIREWALL=true */
	struct policy_dest *dests;
	size_t n_dests, cap_dests;
	uint32_t resolvers[POLICY_MAX_RESOLVERS];  /* DNS allowed only to these */
	size_t n_resolvers;
	bool has_host_net;                     /* CLI_SANDBOX_ALLOW_HOST_NETWORK=true */
	uint32_t host_net_addr;                /* the default gateway's /24 */
	uint8_t host_net_len;
	bool dns_pinned;                       /* CLI_SANDBOX_DNS=pinned: the dynamic set and its rules */
	uint32_t resolver_uid;                 /* the pinning resolver's uid: upstream DNS is its alone */
};

/* What the interactive profile needs from the outside world, as functions so
 * tests and --check can supply their own. */
struct policy_env {
	/* Resolves name to IPv4 addresses (host order); returns the count, 0 when
	 * it does not resolve.  NULL: names are not resolved (--check). */
	size_t (*resolve)(const char *name, uint32_t *addrs, size_t max, void *ctx);
	void *resolve_ctx;
	/* How the resolver child sheds its privileges before it resolves
	 * (lookup.h); the init's drops to the sandbox user. */
	struct lookup_isolation isolation;
	/* Besides root, the owner accepted for CLI_SANDBOX_PROFILE_DIR and its
	 * files (base/trusted_path.h).  The init leaves it 0 (root only); unit
	 * tests that build profile directories as themselves pass getuid(). */
	uid_t trusted_uid;
	const char *resolv_conf;   /* path of resolv.conf */
	const char *route_table;   /* path of /proc/net/route */
	/* The fast path of name resolution (profiles/dns_stub.h), asked first
	 * when both are set: every name at once to the first nameserver of
	 * resolv_conf, where glibc would ask the same first.  NULL: resolve
	 * only does it. */
	const char *nsswitch_conf; /* path of nsswitch.conf */
	const char *hosts;         /* path of the hosts file */
	/* The command about to run, as given (e.g. "claude" or
	 * "/usr/local/bin/codex"): the interactive profile allows the names of
	 * the CLI with that basename.  NULL: those of every CLI in the profile. */
	const char *command;
};

void policy_init(struct policy *p, enum cs_profile profile);
void policy_free(struct policy *p);
/* Adds one destination (copies ranges); 0 or -1 on allocation failure. */
int policy_add_dest(struct policy *p, uint8_t l4proto, uint16_t port,
		    const struct ipv4_range *ranges, size_t n, const char *origin);

#endif
