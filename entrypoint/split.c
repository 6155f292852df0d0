#include "entrypoint/split.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/ipv4.h"
#include "base/path.h"
#include "caps/holds_none.h"
#include "entrypoint/firewall_stage.h"
#include "entrypoint/pinning_check.h"
#include "entrypoint/report.h"
#include "netfilter/apply.h"
#include "netfilter/egress_probe.h"
#include "profiles/policy.h"
#include "profiles/netinfo.h"
#include "profiles/profile.h"

int split_firewall_only(struct pipeline *pl, struct cs_error *err)
{
	if (!pl->policy.firewall)
		return cs_fail(err, CS_EXIT_CONFIG,
			       "--firewall-only with SKIP_EGRESS_FIREWALL=true would program nothing; "
			       "unset SKIP_EGRESS_FIREWALL or do not run the firewall init container");
	return pipeline_program_firewall(pl, err);
}

/* The nameservers of resolv.conf, as probe targets: DNS to each must be
 * refused, IPv4 and IPv6 alike (an IPv6-only resolv.conf, as in an
 * IPv6-primary cluster, must not leave DNS unprobed).  Best effort and
 * silent: a line that is not a usable nameserver is simply not probed, and
 * a missing file leaves the probe of DNS at the gateway's address. */
static void nameservers(const char *path, struct probe_plan *plan)
{
	FILE *f = fopen(path, "re");
	char line[512];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char text[INET6_ADDRSTRLEN];
		size_t len;
		const char *addr = resolv_conf_line_nameserver(line, &len);

		if (!addr)
			continue;
		len = strcspn(addr, "%") < len ? strcspn(addr, "%") : len;  /* an IPv6 zone (%eth0) is not probed apart */
		if (len >= sizeof(text))
			continue;
		memcpy(text, addr, len);
		text[len] = '\0';
		if (plan->n_nameservers < PROBE_MAX_NAMESERVERS &&
		    ipv4_parse_strict(addr, len, &plan->nameservers[plan->n_nameservers]) == 0)
			plan->n_nameservers++;
		else if (plan->n_nameservers6 < PROBE_MAX_NAMESERVERS &&
			 inet_pton(AF_INET6, text, plan->nameservers6[plan->n_nameservers6]) == 1)
			plan->n_nameservers6++;
	}
	fclose(f);
}

/* An address of the pod's own subnet that is neither the pod's nor the
 * gateway's: the subnet of the first IPv4 address of an interface other
 * than loopback.  0 when there is none (a /32 pod address, no address). */
static uint32_t neighbour(uint32_t gateway)
{
	struct ifaddrs *ifa, *i;
	uint32_t own[16], net = 0;
	size_t n_own = 0;
	uint8_t len = 32;

	if (getifaddrs(&ifa) != 0)
		return 0;
	for (i = ifa; i; i = i->ifa_next) {
		uint32_t a, m;

		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !i->ifa_netmask || (i->ifa_flags & IFF_LOOPBACK))
			continue;
		a = ntohl(((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr);
		m = ntohl(((struct sockaddr_in *)i->ifa_netmask)->sin_addr.s_addr);
		if (n_own < sizeof(own) / sizeof(own[0]))
			own[n_own++] = a;
		if (len == 32 && m != 0xffffffffu) {
			net = a & m;
			len = (uint8_t)__builtin_popcount(m);
		}
	}
	freeifaddrs(ifa);
	return len < 32 ? egress_probe_neighbour(net, len, own, n_own, gateway) : 0;
}

/* The destinations the interactive profile would open for this command,
 * from the image's own profile data (range files only: no name is
 * resolved): one address of each, on its port, must be refused too, so an
 * init container that ran the interactive profile cannot pass.  Its
 * warnings (a missing range file, no IPv4 nameserver) are not this start's,
 * so they are muted; a profile that does not load gives no such probes. */
static bool provider_listed(const struct probe_plan *plan, uint32_t addr, uint16_t port)
{
	for (size_t i = 0; i < plan->n_providers; i++)
		if (plan->providers[i].addr == addr && plan->providers[i].port == port)
			return true;
	return false;
}

static void providers(const struct pipeline *pl, const char *resolv_conf, struct probe_plan *plan)
{
	struct cs_config cfg = pl->cfg;
	struct policy_env env = { .resolv_conf = resolv_conf, .route_table = "/proc/net/route",
				  .command = pl->command.argv[0] };
	struct policy p;
	struct cs_error err;

	cfg.profile = CS_PROFILE_INTERACTIVE;
	cfg.allow_host_network = false;
	cfg.has_allow = false;
	cs_mute(true);
	if (policy_build(&cfg, &env, &p, &err) == 0) {
		for (size_t i = 0; i < p.n_dests && plan->n_providers < PROBE_MAX_PROVIDERS; i++) {
			const struct policy_dest *d = &p.dests[i];
			const struct ipv4_range *r = d->n_ranges ? &d->ranges[0] : NULL;
			uint32_t a;

			if (d->l4proto != IPPROTO_TCP || !r)
				continue;
			a = r->first + (r->last - r->first) / 2;  /* inside the range, clear of its edges */
			if (d->port == plan->port && plan->gateway >= r->first && plan->gateway <= r->last)
				continue;  /* the model endpoint itself */
			if (a == plan->gateway || provider_listed(plan, a, d->port))
				continue;
			plan->providers[plan->n_providers++] = (struct probe_dest){ .addr = a, .port = d->port };
		}
		policy_free(&p);
	}
	cs_mute(false);
}

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* The allowed name the pinned check resolves and connects to: the model
 * endpoint's when it is a name (what the CLI talks to first), else the
 * first name of CLI_SANDBOX_ALLOW, else the first of the command's own
 * names in the profile.  0, or -1 with err (78) when there is none. */
static int pinned_name(const struct pipeline *pl, struct pinning_check *c, struct cs_error *err)
{
	const struct cs_config *cfg = &pl->cfg;
	struct profile prof;
	const struct profile_section *cli;

	if (cfg->has_url && !cfg->url.host_is_ipv4) {
		snprintf(c->name, sizeof(c->name), "%s", cfg->url.host);
		c->port = cfg->url.port;
		c->origin = "TASK_AGENT_MODEL_BASE_URL";
		return 0;
	}
	for (size_t i = 0; i < cfg->n_allow; i++)
		if (cfg->allow[i].is_name) {
			snprintf(c->name, sizeof(c->name), "%s", cfg->allow[i].name);
			c->port = cfg->allow[i].port;
			c->origin = "CLI_SANDBOX_ALLOW";
			return 0;
		}
	cs_mute(true);  /* the policy stage announced the profile already */
	if (profile_load(cfg->profile_dir, &prof, err)) {
		cs_mute(false);
		return -1;
	}
	cs_mute(false);
	cli = profile_cli(&prof, cs_basename(pl->command.argv[0]));
	if (cli && cli->n_domains && cli->domains[0].n_ports) {
		snprintf(c->name, sizeof(c->name), "%s", cli->domains[0].name);
		c->port = cli->domains[0].ports[0];
		c->origin = "the profile";
	}
	profile_free(&prof);
	if (c->name[0])
		return 0;
	return cs_fail(err, CS_EXIT_CONFIG,
		       "--verify-only with CLI_SANDBOX_DNS=pinned has no allowed name to prove the pinning with (no model URL with a name, "
		       "no name in CLI_SANDBOX_ALLOW, no profile names for '%.64s'); set CLI_SANDBOX_ALLOW=NAME:PORT",
		       cs_basename(pl->command.argv[0]));
}

/* The interactive profile with the pinning resolver beside it: identity,
 * then the pinning by behaviour (entrypoint/pinning_check.h). */
static int verify_pinned(const struct pipeline *pl, struct cs_error *err)
{
	struct pinning_check c = { 0 };
	char proven[256];
	long long t0 = now_us();

	if (privileges_verify_none(&pl->user, err) || pinned_name(pl, &c, err))
		return -1;
	/* the upstreams the resolver's uid alone may reach: the policy's
	 * resolvers (CLI_SANDBOX_DNS_UPSTREAM, else resolv.conf's), without
	 * loopback, which is the resolver itself */
	for (size_t i = 0; i < pl->policy.n_resolvers && c.n_upstream < PINNING_CHECK_UPSTREAMS; i++)
		if (pl->policy.resolvers[i] >> 24 != 127)
			c.upstream[c.n_upstream++] = pl->policy.resolvers[i];
	if (pinning_check_run(&c, proven, sizeof(proven), err))
		return -1;
	cs_info("verified: uid=%u gid=%u, no capabilities, no_new_privs; %s; self-check %.1f ms; interactive profile: the ruleset's digest "
		"is not compared here (the init container's holds its own start-time lookups)",
		(unsigned)pl->user.uid, (unsigned)pl->user.gid, proven, (double)(now_us() - t0) / 1000.0);
	return 0;
}

int split_verify_only(const struct pipeline *pl, const char *resolv_conf, struct cs_error *err)
{
	struct egress_probe probes[PROBE_MAX];
	struct probe_plan plan = { .gateway = pl->cfg.url.addr, .port = pl->cfg.url.port };
	char proven[256];
	long long t0 = now_us();
	size_t n;

	if (pl->cfg.profile == CS_PROFILE_INTERACTIVE && pl->cfg.dns_pinned && pl->policy.firewall)
		return verify_pinned(pl, err);
	if (pl->cfg.profile != CS_PROFILE_MANAGED || !pl->policy.firewall)
		return cs_fail(err, CS_EXIT_CONFIG,
			       "--verify-only proves the managed profile's firewall, or the interactive one with the pinning resolver "
			       "(CLI_SANDBOX_DNS=pinned), and CLI_SANDBOX_EGRESS_PROFILE is %s without it; "
			       "use the managed profile in the pod, the pinned interactive pod (deploy/kubernetes/interactive/pod.yaml), "
			       "or start the interactive profile without the split",
			       cs_profile_name(pl->cfg.profile));
	if (privileges_verify_none(&pl->user, err))
		return -1;
	nameservers(resolv_conf, &plan);
	plan.neighbour = neighbour(plan.gateway);
	providers(pl, resolv_conf, &plan);
	n = egress_probes_managed(&plan, probes);
	if (egress_probes_verify(probes, n, proven, sizeof(proven), err))
		return -1;
	cs_info("verified: uid=%u gid=%u, no capabilities, no_new_privs; %s; self-check %.1f ms; this configuration's ruleset "
		"is sha256=%s (computed here, not read from the kernel: compare the init container's \"firewall up\" line)",
		(unsigned)pl->user.uid, (unsigned)pl->user.gid, proven, (double)(now_us() - t0) / 1000.0, pl->digest);
	return 0;
}
