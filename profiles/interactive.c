/* The interactive policy: the profile, its range files, resolv.conf, the
 * routing table, the model URL and CLI_SANDBOX_ALLOW become destinations,
 * each with its origin.  Order: every file is read and checked first (a bad
 * one stops the start before the network is touched), then all names are
 * resolved at once within LOOKUP_TIMEOUT_MS, then the destinations are
 * added: model endpoint, profile names, provider ranges, the user's own. */
#include "profiles/interactive.h"

#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/path.h"
#include "base/trusted_path.h"
#include "profiles/dns_stub.h"
#include "profiles/lookup.h"
#include "profiles/netinfo.h"
#include "profiles/profile.h"
#include "profiles/ranges.h"

/* Everything the build needs, so one cleanup path frees it all. */
struct build {
	const struct cs_config *cfg;
	const struct policy_env *env;
	struct policy *p;
	struct cs_error *err;
	struct profile prof;
	const struct profile_section **sections;  /* common first */
	size_t n_sections;
	const char **names;                       /* every name to resolve, once */
	const char **name_origin;                 /* where it first came from, for warnings */
	size_t n_names;
	struct lookup_result *answers;            /* NULL: names are not resolved (--check) */
	struct loaded_ranges {
		const struct profile_ranges *src;
		struct range_list list;
		bool present;                     /* false: a file is missing */
	} *loaded;
	size_t n_loaded;
	char warned_files[8][PROFILE_FILE_MAX];   /* missing files, warned once */
	size_t n_warned;
};

/* Origins are shortened to fit POLICY_ORIGIN_MAX; that is all they need. */
__attribute__((format(printf, 2, 3)))
static void origin_fmt(char *out, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out, POLICY_ORIGIN_MAX, fmt, ap);
	va_end(ap);
}

static int oom(struct build *b)
{
	return cs_fail(b->err, CS_EXIT_OSERR, "out of memory building the interactive policy");
}

static int add_dest(struct build *b, uint16_t port, const struct ipv4_range *r, size_t n,
		    const char *origin)
{
	return policy_add_dest(b->p, IPPROTO_TCP, port, r, n, origin) ? oom(b) : 0;
}

/* The sections that apply: common and the running CLI's; every CLI's when
 * the command is not one of the profile's (a shell may start any of them). */
static int select_sections(struct build *b)
{
	const struct profile_section *cli = NULL;

	b->sections = calloc(b->prof.n_sections, sizeof(*b->sections));
	if (!b->sections)
		return oom(b);
	b->sections[b->n_sections++] = &b->prof.sections[0];
	if (b->env->command)
		cli = profile_cli(&b->prof, cs_basename(b->env->command));
	if (cli) {
		b->sections[b->n_sections++] = cli;
		return 0;
	}
	if (b->env->command && b->prof.n_sections > 1)
		cs_info("'%.64s' is not a CLI of the profile: allowing the names of all of them", cs_basename(b->env->command));
	for (size_t i = 1; i < b->prof.n_sections; i++)
		b->sections[b->n_sections++] = &b->prof.sections[i];
	return 0;
}

static int name_index(const struct build *b, const char *name)
{
	for (size_t i = 0; i < b->n_names; i++)
		if (strcmp(b->names[i], name) == 0)
			return (int)i;
	return -1;
}

static void want_name(struct build *b, const char *name, const char *origin)
{
	if (name_index(b, name) >= 0)
		return;
	b->names[b->n_names] = name;
	b->name_origin[b->n_names] = origin;
	b->n_names++;
}

static int collect_names(struct build *b)
{
	size_t cap = 1 + b->cfg->n_allow;

	for (size_t s = 0; s < b->n_sections; s++)
		cap += b->sections[s]->n_domains;
	b->names = calloc(cap, sizeof(*b->names));
	b->name_origin = calloc(cap, sizeof(*b->name_origin));
	if (!b->names || !b->name_origin)
		return oom(b);
	if (b->cfg->has_url && !b->cfg->url.host_is_ipv4)
		want_name(b, b->cfg->url.host, "TASK_AGENT_MODEL_BASE_URL");
	for (size_t s = 0; s < b->n_sections; s++)
		for (size_t d = 0; d < b->sections[s]->n_domains; d++)
			want_name(b, b->sections[s]->domains[d].name, b->sections[s]->name);
	for (size_t a = 0; a < b->cfg->n_allow; a++)
		if (b->cfg->allow[a].is_name)
			want_name(b, b->cfg->allow[a].name, "CLI_SANDBOX_ALLOW");
	return 0;
}

/* Resolves every name at once, within LOOKUP_TIMEOUT_MS, and drops the
 * addresses no profile may allow.  A name that does not resolve is a
 * warning: it opens nothing. */
static int resolve_names(struct build *b)
{
	char a[IPV4_TEXT_MAX];
	struct dns_stub stub;
	struct lookup_batch batch = { dns_stub_batch, &stub };

	if (!b->env->resolve || b->n_names == 0)
		return 0;
	b->answers = calloc(b->n_names, sizeof(*b->answers));
	if (!b->answers)
		return oom(b);
	/* The fast path asks the first nameserver the firewall will allow. */
	stub = (struct dns_stub){ .nameserver = b->p->n_resolvers ? b->p->resolvers[0] : 0,
				  .resolv_conf = b->env->resolv_conf, .nsswitch_conf = b->env->nsswitch_conf,
				  .hosts = b->env->hosts };
	if (lookup_all(b->env->resolve, b->env->resolve_ctx, &b->env->isolation,
		       b->env->nsswitch_conf && b->env->hosts ? &batch : NULL, b->names, b->n_names,
		       LOOKUP_TIMEOUT_MS, b->answers, b->err))
		return -1;
	for (size_t i = 0; i < b->n_names; i++) {
		struct lookup_result *r = &b->answers[i];
		size_t kept = 0;

		if (!r->answered) {
			cs_warn("%s (%s) did not resolve within %d s; nothing is allowed for it",
				b->names[i], b->name_origin[i], LOOKUP_TIMEOUT_MS / 1000);
			continue;
		}
		if (r->n == 0) {
			cs_warn("%s (%s) does not resolve to an IPv4 address; nothing is allowed for it",
				b->names[i], b->name_origin[i]);
			continue;
		}
		for (size_t k = 0; k < r->n; k++) {
			const char *why = ipv4_forbidden_destination(r->addrs[k]);

			if (why && b->cfg->has_url && strcmp(b->names[i], b->cfg->url.host) == 0)
				/* The gateway is what the CLI talks to: a poisoned answer
				 * for it is an attack or a broken resolver, never a
				 * detail to drop. */
				return cs_fail(b->err, CS_EXIT_CONFIG, "the model gateway %s (TASK_AGENT_MODEL_BASE_URL) resolves to %s, in %s, which is never allowed; fix its DNS record or use the gateway's address",
					       b->names[i], ipv4_to_string(r->addrs[k], a), why);
			if (why) {
				cs_warn("%s (%s) resolves to %s, in %s, which is never allowed; that address is ignored",
					b->names[i], b->name_origin[i], ipv4_to_string(r->addrs[k], a), why);
				continue;
			}
			r->addrs[kept++] = r->addrs[k];
		}
		r->n = kept;
	}
	return 0;
}

/* A destination for name on port: its resolved addresses, sorted; none when
 * it did not resolve (the dry-run shows it as such). */
static int add_name_dest(struct build *b, const char *name, uint16_t port, const char *origin)
{
	struct ipv4_range r[LOOKUP_MAX_ADDRS];
	size_t n = 0;
	int i = name_index(b, name);

	if (b->answers && i >= 0)
		for (size_t k = 0; k < b->answers[i].n; k++)
			r[n++] = (struct ipv4_range){ b->answers[i].addrs[k], b->answers[i].addrs[k] };
	n = ipv4_ranges_normalise(r, n);
	return add_dest(b, port, r, n, origin);
}

/* Whether an earlier section already lists name on port. */
static bool listed_before(const struct build *b, size_t s, const char *name, uint16_t port)
{
	for (size_t e = 0; e < s; e++)
		for (size_t d = 0; d < b->sections[e]->n_domains; d++) {
			const struct profile_domain *o = &b->sections[e]->domains[d];

			for (size_t k = 0; k < o->n_ports && strcmp(o->name, name) == 0; k++)
				if (o->ports[k] == port)
					return true;
		}
	return false;
}

/* One destination per name and port, under the first section that lists it. */
static int add_domains(struct build *b)
{
	char origin[POLICY_ORIGIN_MAX];

	for (size_t s = 0; s < b->n_sections; s++) {
		const struct profile_section *sec = b->sections[s];

		for (size_t d = 0; d < sec->n_domains; d++) {
			const struct profile_domain *dom = &sec->domains[d];

			origin_fmt(origin, "profile %s: %s", sec->name, dom->name);
			for (size_t k = 0; k < dom->n_ports; k++)
				if (!listed_before(b, s, dom->name, dom->ports[k]) &&
				    add_name_dest(b, dom->name, dom->ports[k], origin))
					return -1;
		}
	}
	return 0;
}

/* The path of a data file of the profile directory. */
static void data_path(const struct build *b, const char *file, char *path, size_t len)
{
	snprintf(path, len, "%s/%s", b->cfg->profile_dir, file);
}

/* Warns once per missing file. */
static void warn_missing(struct build *b, const char *file, const char *consequence)
{
	char path[PATH_MAX + PROFILE_FILE_MAX];

	for (size_t i = 0; i < b->n_warned; i++)
		if (strcmp(b->warned_files[i], file) == 0)
			return;
	if (b->n_warned < sizeof(b->warned_files) / sizeof(b->warned_files[0]))
		snprintf(b->warned_files[b->n_warned++], PROFILE_FILE_MAX, "%s", file);
	data_path(b, file, path, sizeof(path));
	cs_warn("range file %s is missing: %s (scripts/refresh-ranges fetches it)", path, consequence);
}

static int load_file(struct build *b, const struct profile_ranges *src, const char *file,
		     struct range_list *out)
{
	char path[PATH_MAX + PROFILE_FILE_MAX];
	const char *lists[PROFILE_MAX_LISTS];
	int rc;

	data_path(b, file, path, sizeof(path));
	rc = trusted_path_check(path, TRUSTED_FILE, b->env->trusted_uid, b->err);
	if (rc)
		return rc;  /* 1: missing, warned by the caller; -1: not root's */
	for (size_t i = 0; i < src->n_lists; i++)
		lists[i] = src->lists[i];
	if (src->format == PROFILE_RANGES_GITHUB_META)
		return ranges_load_github_meta(path, lists, src->n_lists, out, b->err);
	return ranges_load_google(path, out, b->err);
}

/* Reads one range source (a file, minus another) into *out; *present is
 * false when a file is missing (warned). */
static int load_range_source(struct build *b, const struct profile_ranges *src, struct range_list *out,
			     bool *present)
{
	struct range_list minus = { 0 }, diff;
	bool cut;
	int rc;

	rc = load_file(b, src, src->file, out);
	if (rc < 0)
		return -1;
	if (rc == 1) {
		warn_missing(b, src->file, "its ranges are not allowed, names still resolve");
		return 0;
	}
	if (src->minus[0]) {
		rc = load_file(b, src, src->minus, &minus);
		if (rc == 1) {
			char why[200];

			snprintf(why, sizeof(why), "%.60s is not used without it, since it would include what %.60s subtracts",
				 src->file, src->minus);
			warn_missing(b, src->minus, why);
		}
		if (rc) {
			range_list_free(out);
			return rc < 0 ? -1 : 0;
		}
		rc = range_list_subtract(out, &minus, &diff);
		range_list_free(out);
		range_list_free(&minus);
		if (rc)
			return oom(b);
		*out = diff;
	}
	if (range_list_remove_forbidden(out, &cut))
		return oom(b);
	if (cut)
		cs_warn("%s/%s lists loopback, link-local, multicast or reserved addresses; they were left out",
			b->cfg->profile_dir, src->file);
	*present = true;
	return 0;
}

/* Every range file is read (and validated) before any name is resolved, so
 * a bad file stops the start at once. */
static int load_ranges(struct build *b)
{
	size_t n = 0;

	for (size_t s = 0; s < b->n_sections; s++)
		n += b->sections[s]->n_ranges;
	b->loaded = calloc(n + 1, sizeof(*b->loaded));
	if (!b->loaded)
		return oom(b);
	for (size_t s = 0; s < b->n_sections; s++)
		for (size_t r = 0; r < b->sections[s]->n_ranges; r++) {
			struct loaded_ranges *l = &b->loaded[b->n_loaded++];

			l->src = &b->sections[s]->ranges[r];
			if (load_range_source(b, l->src, &l->list, &l->present))
				return -1;
		}
	return 0;
}

static int add_ranges(struct build *b)
{
	char origin[POLICY_ORIGIN_MAX], what[96];

	for (size_t i = 0; i < b->n_loaded; i++) {
		const struct profile_ranges *src = b->loaded[i].src;
		const struct range_list *l = &b->loaded[i].list;

		if (!b->loaded[i].present)
			continue;  /* missing file, warned */
		what[0] = '\0';
		for (size_t k = 0; k < src->n_lists; k++)
			snprintf(what + strlen(what), sizeof(what) - strlen(what), "%s%s", k ? "+" : " ", src->lists[k]);
		if (src->minus[0])
			snprintf(what + strlen(what), sizeof(what) - strlen(what), " minus %s", src->minus);
		for (size_t k = 0; k < src->n_ports; k++) {
			origin_fmt(origin, "%s%s (%u)", src->file, what, src->ports[k]);
			if (add_dest(b, src->ports[k], l->r, l->n, origin))
				return -1;
		}
	}
	return 0;
}

static int add_model_url(struct build *b)
{
	const struct model_url *u = &b->cfg->url;
	char origin[POLICY_ORIGIN_MAX];
	struct ipv4_range r = { u->addr, u->addr };

	if (!b->cfg->has_url)
		return 0;
	origin_fmt(origin, "model endpoint (TASK_AGENT_MODEL_BASE_URL): %s", u->host);
	if (u->host_is_ipv4)
		return add_dest(b, u->port, &r, 1, origin);
	return add_name_dest(b, u->host, u->port, origin);
}

static int add_allow(struct build *b)
{
	char origin[POLICY_ORIGIN_MAX];

	for (size_t i = 0; i < b->cfg->n_allow; i++) {
		const struct allow_entry *a = &b->cfg->allow[i];
		int rc;

		origin_fmt(origin, "CLI_SANDBOX_ALLOW: %s", a->text);
		rc = a->is_name ? add_name_dest(b, a->name, a->port, origin)
				: add_dest(b, a->port, &a->range, 1, origin);
		if (rc)
			return -1;
	}
	return 0;
}

static int host_network(struct build *b)
{
	uint32_t gw;
	const char *why;

	if (!b->cfg->allow_host_network)
		return 0;
	if (route_default_gateway(b->env->route_table, &gw, b->err))
		return -1;
	why = ipv4_forbidden_destination(gw);
	if (why)
		return cs_fail(b->err, CS_EXIT_CONFIG, "CLI_SANDBOX_ALLOW_HOST_NETWORK=true, but the default gateway is in %s; unset it and allow what you need with CLI_SANDBOX_ALLOW", why);
	b->p->has_host_net = true;
	b->p->host_net_addr = gw & 0xffffff00u;
	b->p->host_net_len = 24;
	return 0;
}

/* The profile directory decides what the firewall opens: it, and the
 * override read from it, must be root's alone (base/trusted_path.h).  A
 * missing directory or override is no trust problem: the files are then
 * missing, as warned.  Each range file is checked as it is read. */
static int trusted_inputs(struct build *b)
{
	char path[PATH_MAX + PROFILE_FILE_MAX];

	if (trusted_path_check(b->cfg->profile_dir, TRUSTED_DIR, b->env->trusted_uid, b->err) < 0)
		return -1;
	data_path(b, PROFILE_OVERRIDE_FILE, path, sizeof(path));
	return trusted_path_check(path, TRUSTED_FILE, b->env->trusted_uid, b->err) < 0 ? -1 : 0;
}

static int build(struct build *b)
{
	int n;

	if (b->cfg->skip_firewall) {
		b->p->firewall = false;  /* programs nothing: no file read, no name resolved */
		return 0;
	}
	if (trusted_inputs(b) || profile_load(b->cfg->profile_dir, &b->prof, b->err) || select_sections(b))
		return -1;
	if (b->cfg->n_dns_upstream) {
		/* CLI_SANDBOX_DNS_UPSTREAM: resolv.conf names the pinning
		 * resolver itself (127.0.0.1), so the upstreams come from the
		 * configuration; the warm-up asks the first of them too. */
		for (size_t i = 0; i < b->cfg->n_dns_upstream && i < POLICY_MAX_RESOLVERS; i++)
			b->p->resolvers[i] = b->cfg->dns_upstream[i];
		n = (int)(b->cfg->n_dns_upstream < POLICY_MAX_RESOLVERS ? b->cfg->n_dns_upstream : POLICY_MAX_RESOLVERS);
	} else {
		n = resolv_conf_nameservers(b->env->resolv_conf, b->p->resolvers, POLICY_MAX_RESOLVERS, b->err);
		if (n < 0)
			return -1;
	}
	b->p->n_resolvers = (size_t)n;
	if (host_network(b) || load_ranges(b) || collect_names(b) || resolve_names(b))
		return -1;
	return add_model_url(b) || add_domains(b) || add_ranges(b) || add_allow(b);
}

/* The names of collect_names(), each with its ports: the same sources in
 * the same order, so that what the resolver pins and what the start
 * resolves cannot drift apart. */
static int walk_names(struct build *b, interactive_name_fn fn, void *ctx)
{
	char origin[POLICY_ORIGIN_MAX];
	int rc;

	if (b->cfg->has_url && !b->cfg->url.host_is_ipv4 &&
	    (rc = fn(ctx, b->cfg->url.host, b->cfg->url.port, true, "TASK_AGENT_MODEL_BASE_URL")) != 0)
		return rc;
	for (size_t s = 0; s < b->n_sections; s++)
		for (size_t d = 0; d < b->sections[s]->n_domains; d++) {
			const struct profile_domain *dom = &b->sections[s]->domains[d];

			origin_fmt(origin, "profile %s", b->sections[s]->name);
			for (size_t k = 0; k < dom->n_ports; k++)
				if ((rc = fn(ctx, dom->name, dom->ports[k], false, origin)) != 0)
					return rc;
		}
	for (size_t a = 0; a < b->cfg->n_allow; a++)
		if (b->cfg->allow[a].is_name &&
		    (rc = fn(ctx, b->cfg->allow[a].name, b->cfg->allow[a].port, true, "CLI_SANDBOX_ALLOW")) != 0)
			return rc;
	return 0;
}

int interactive_names(const struct cs_config *cfg, const struct policy_env *env,
		      interactive_name_fn fn, void *ctx, struct cs_error *err)
{
	struct build b = { .cfg = cfg, .env = env, .err = err };
	int rc;

	if (cfg->profile != CS_PROFILE_INTERACTIVE || cfg->skip_firewall)
		return cs_fail(err, CS_EXIT_CONFIG, "the names of the interactive profile were asked for, but the profile is %s%s; set CLI_SANDBOX_EGRESS_PROFILE=interactive without SKIP_EGRESS_FIREWALL",
			       cs_profile_name(cfg->profile), cfg->skip_firewall ? " without a firewall" : "");
	rc = trusted_inputs(&b) || profile_load(cfg->profile_dir, &b.prof, err) || select_sections(&b) ? -1 : 0;
	if (rc == 0)
		rc = walk_names(&b, fn, ctx);
	profile_free(&b.prof);
	free(b.sections);
	return rc;
}

int interactive_policy(const struct cs_config *cfg, const struct policy_env *env,
		       struct policy *p, struct cs_error *err)
{
	struct build b = { .cfg = cfg, .env = env, .p = p, .err = err };
	int rc = build(&b);

	profile_free(&b.prof);
	free(b.sections);
	free(b.names);
	free(b.name_origin);
	free(b.answers);
	for (size_t i = 0; i < b.n_loaded; i++)
		range_list_free(&b.loaded[i].list);
	free(b.loaded);
	return rc ? -1 : 0;
}
