#include "entrypoint/split.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/ipv4.h"
#include "caps/holds_none.h"
#include "entrypoint/report.h"
#include "netfilter/apply.h"
#include "netfilter/egress_probe.h"
#include "profiles/netinfo.h"

#define SPLIT_MAX_NAMESERVERS 3  /* what libc uses */

int split_firewall_only(const struct pipeline *pl, struct cs_error *err)
{
	if (!pl->policy.firewall)
		return cs_fail(err, CS_EXIT_CONFIG,
			       "--firewall-only with SKIP_EGRESS_FIREWALL=true would program nothing; "
			       "unset SKIP_EGRESS_FIREWALL or do not run the firewall init container");
	if (firewall_apply(&pl->ruleset, err))
		return -1;
	report_firewall_up(pl);
	return 0;
}

/* The IPv4 nameservers of resolv.conf, as probe targets: DNS to each must
 * be refused.  Best effort and silent: a line that is not a usable IPv4
 * nameserver is simply not probed (IPv6 has its own probe), and a missing
 * file leaves the probe of DNS at the gateway's address. */
static size_t nameservers(const char *path, uint32_t *out)
{
	FILE *f = fopen(path, "re");
	char line[512];
	size_t n = 0;

	if (!f)
		return 0;
	while (n < SPLIT_MAX_NAMESERVERS && fgets(line, sizeof(line), f)) {
		size_t len;
		const char *addr = resolv_conf_line_nameserver(line, &len);

		if (addr && ipv4_parse_strict(addr, len, &out[n]) == 0)
			n++;
	}
	fclose(f);
	return n;
}

int split_verify_only(const struct pipeline *pl, const char *resolv_conf, struct cs_error *err)
{
	struct egress_probe probes[PROBE_MAX];
	uint32_t ns[SPLIT_MAX_NAMESERVERS];
	char proven[256];
	size_t n;

	if (pl->cfg.profile != CS_PROFILE_MANAGED || !pl->policy.firewall)
		return cs_fail(err, CS_EXIT_CONFIG,
			       "--verify-only proves the managed profile's firewall, and CLI_SANDBOX_EGRESS_PROFILE is %s; "
			       "use the managed profile in the pod, or start the interactive profile without the split",
			       cs_profile_name(pl->cfg.profile));
	if (privileges_verify_none(&pl->user, err))
		return -1;
	n = egress_probes_managed(pl->cfg.url.addr, pl->cfg.url.port, ns, nameservers(resolv_conf, ns), probes);
	if (egress_probes_verify(probes, n, proven, sizeof(proven), err))
		return -1;
	cs_info("verified: uid=%u gid=%u, no capabilities, no_new_privs; %s; the init container's ruleset should be sha256=%s",
		(unsigned)pl->user.uid, (unsigned)pl->user.gid, proven, pl->digest);
	return 0;
}
