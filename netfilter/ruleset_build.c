#include "netfilter/ruleset_build.h"

#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Appends a rule built from `n` matches; the comment explains it to operators. */
static int add(struct nf_ruleset *rs, int chain, enum nf_verdict v, const char *comment,
	       size_t n, ...)
{
	struct nf_rule r = { .n_matches = n, .verdict = v };
	va_list ap;

	if (chain < 0 || n > NF_MAX_MATCHES)
		return -1;
	va_start(ap, n);
	for (size_t i = 0; i < n; i++)
		r.matches[i] = va_arg(ap, struct nf_match);
	va_end(ap);
	snprintf(r.comment, sizeof(r.comment), "%s", comment);
	return ruleset_add_rule(rs, (size_t)chain, &r);
}

static const uint8_t dns_protos[] = { IPPROTO_UDP, IPPROTO_TCP };

/* Docker's embedded resolver.  It answers at 127.0.0.11 on random ports that
 * Docker's own DNAT hides behind :53, readable in /proc/net/{udp,tcp}; on a
 * user-defined network it forwards what it cannot answer itself. */
#define DOCKER_DNS 0x7f00000bu  /* 127.0.0.11 */

/* The block log: before a refusal, a rule with the same matches sends a
 * rate-limited copy of the packet's headers to the NFLOG group PID 1 reads
 * (docs/block-log.md).  It decides nothing: the packet goes on to the
 * refusal, whatever the limit says. */
static int add_log(struct nf_ruleset *rs, int chain, const char *comment,
		   size_t n, const struct nf_match *m)
{
	struct nf_rule r = { .n_matches = n, .verdict = NF_VERDICT_LOG };

	if (chain < 0 || n > NF_MAX_MATCHES)
		return -1;
	if (n)
		memcpy(r.matches, m, n * sizeof(*m));
	snprintf(r.comment, sizeof(r.comment), "%s: logged to the block log, rate-limited", comment);
	return ruleset_add_rule(rs, (size_t)chain, &r);
}

/* How every refusal fails fast: TCP gets a reset (immediate, even where an
 * ICMP error could never come back, as to an IPv6 link-local peer; MPTCP is
 * TCP on the wire), everything else ICMP admin-prohibited.  `n` extra
 * matches narrow both rules, and the log rule before them. */
static int add_refusal(struct nf_ruleset *rs, int chain, const char *comment,
		       size_t n, const struct nf_match *m)
{
	struct nf_rule r = { .n_matches = n + 1, .verdict = NF_VERDICT_REJECT_RESET };

	if (chain < 0 || n + 1 > NF_MAX_MATCHES || add_log(rs, chain, comment, n, m))
		return -1;
	if (n)
		memcpy(r.matches, m, n * sizeof(*m));
	r.matches[n] = nf_match_l4proto(IPPROTO_TCP);
	snprintf(r.comment, sizeof(r.comment), "%s: TCP gets a reset", comment);
	if (ruleset_add_rule(rs, (size_t)chain, &r))
		return -1;
	r.n_matches = n;
	r.verdict = NF_VERDICT_REJECT_ADMIN;
	snprintf(r.comment, sizeof(r.comment), "%s", comment);
	return ruleset_add_rule(rs, (size_t)chain, &r);
}

/* The refusal of a rule that already names its protocol, logged first. */
static int add_proto_refusal(struct nf_ruleset *rs, int chain, uint8_t l4proto,
			     const char *comment, size_t n, const struct nf_match *m)
{
	struct nf_rule r = { .n_matches = n, .verdict = l4proto == IPPROTO_TCP ?
			     NF_VERDICT_REJECT_RESET : NF_VERDICT_REJECT_ADMIN };

	if (chain < 0 || n > NF_MAX_MATCHES || add_log(rs, chain, comment, n, m))
		return -1;
	memcpy(r.matches, m, n * sizeof(*m));
	snprintf(r.comment, sizeof(r.comment), "%s", comment);
	return ruleset_add_rule(rs, (size_t)chain, &r);
}

static bool names_docker_dns(const struct policy *p)
{
	for (size_t i = 0; i < p->n_resolvers; i++)
		if (p->resolvers[i] == DOCKER_DNS)
			return true;
	return false;
}

/* DNS: only to the resolvers the profile names, and matched on the original
 * destination (conntrack) because Docker DNATs its embedded resolver
 * 127.0.0.11:53 to another loopback port before the filter hook sees it.
 * The plain dport rules catch packets that carry no conntrack entry. */
static int add_dns_rules(struct nf_ruleset *rs, int out, const struct policy *p)
{
	for (size_t i = 0; i < p->n_resolvers; i++)
		for (size_t k = 0; k < 2; k++)
			if (p->dns_pinned ?
			    add(rs, out, NF_VERDICT_ACCEPT, "DNS to a resolver from resolv.conf, from the pinning resolver only", 4,
				nf_match_skuid(p->resolver_uid), nf_match_l4proto(dns_protos[k]),
				nf_match_ct_orig_daddr(p->resolvers[i], 32), nf_match_ct_orig_dport(53)) :
			    add(rs, out, NF_VERDICT_ACCEPT, "DNS to a resolver from resolv.conf", 3,
				nf_match_l4proto(dns_protos[k]),
				nf_match_ct_orig_daddr(p->resolvers[i], 32),
				nf_match_ct_orig_dport(53)))
				return -1;
	/* Docker's resolver forwards from inside this network namespace, so its
	 * upstream queries pass this chain.  They are the only root-owned
	 * sockets here: the command never runs as root, and dockerd writes no
	 * upstream address into the container (20.10), so the owner is what
	 * tells them apart.  Port 53 only. */
	if (names_docker_dns(p))
		for (size_t k = 0; k < 2; k++)
			if (add(rs, out, NF_VERDICT_ACCEPT,
				"upstream queries of Docker's embedded resolver (root's sockets)", 3,
				nf_match_skuid(0), nf_match_l4proto(dns_protos[k]),
				nf_match_ct_orig_dport(53)))
				return -1;
	for (size_t k = 0; k < 2; k++) {
		struct nf_match m[2] = { nf_match_l4proto(dns_protos[k]), nf_match_ct_orig_dport(53) };

		if (add_proto_refusal(rs, out, dns_protos[k],
				      "no DNS anywhere else, judged by the destination before NAT", 2, m))
			return -1;
	}
	for (size_t k = 0; k < 2; k++) {
		struct nf_match m = nf_match_dport(dns_protos[k], 53);

		if (add_proto_refusal(rs, out, dns_protos[k], "no DNS, untracked packets included", 1, &m))
			return -1;
	}
	/* Nothing else reaches the resolver, on any port: a query sent straight
	 * to a real port would be answered (container names) and forwarded.
	 * Matched after NAT, where the DNAT has kept the address. */
	{
		struct nf_match m = nf_match_ip_daddr(DOCKER_DNS, 32);

		if (add_refusal(rs, out, "Docker's embedded resolver on any other port", 1, &m))
			return -1;
	}
	return 0;
}

#define PINNED_RESOLVER 0x7f000001u  /* 127.0.0.1, where the pinning resolver listens */

/* CLI_SANDBOX_DNS=pinned, before the established rule: DNS to the pinning
 * resolver on 127.0.0.1:53 from anyone; any other DNS from any uid but the
 * resolver's (and root's, when Docker's embedded resolver forwards) is
 * refused whatever conntrack says.  The resolver sends each query from a
 * fresh port, and a command sending to the upstream from one of those
 * ports would otherwise match the resolver's established flow
 * (tests/netns/test_pinning.sh reproduces it). */
static int add_pinned_dns_guard(struct nf_ruleset *rs, int out, const struct policy *p)
{
	for (size_t k = 0; k < 2; k++)
		if (add(rs, out, NF_VERDICT_ACCEPT, "DNS to the pinning resolver on 127.0.0.1:53", 3,
			nf_match_l4proto(dns_protos[k]), nf_match_ct_orig_daddr(PINNED_RESOLVER, 32),
			nf_match_ct_orig_dport(53)))
			return -1;
	for (size_t k = 0; k < 2; k++) {
		struct nf_match m[4] = { nf_match_l4proto(dns_protos[k]), nf_match_ct_orig_dport(53),
					 nf_match_skuid_not(p->resolver_uid), nf_match_skuid_not(0) };

		if (add_proto_refusal(rs, out, dns_protos[k], "no DNS but the pinning resolver's, established or not",
				      names_docker_dns(p) ? 4 : 3, m))
			return -1;
	}
	return 0;
}

/* CLI_SANDBOX_DNS=pinned, after loopback: the guard refuses the forbidden
 * blocks (nftables cannot restrict what a set may hold, only what a rule
 * accepts), then the dynamic set the resolver fills is accepted. */
static int add_pinned_set_rules(struct nf_ruleset *rs, int out)
{
	struct ipv4_range guard[16];
	size_t n = 0;
	int g, d;

	for (size_t i = 0; i < ipv4_n_forbidden_blocks && n < 16; i++)
		guard[n++] = ipv4_forbidden_blocks[i].range;
	g = ruleset_add_set(rs, CS_PINNED_GUARD_SET, guard, n, "the forbidden blocks, whatever the pinned set holds");
	d = ruleset_add_dynamic_set(rs, CS_PINNED_SET, CS_PINNED_TIMEOUT_S, CS_PINNED_SIZE,
				    "the pinning resolver's answers, each for its timeout");
	if (g < 0 || d < 0)
		return -1;
	{
		struct nf_match m = nf_match_ip_daddr_set((size_t)g);

		if (add_refusal(rs, out, "the forbidden blocks, before the pinned set", 1, &m))
			return -1;
	}
	return add(rs, out, NF_VERDICT_ACCEPT, "pinned by the resolver (address and port, each with a timeout)", 1,
		   nf_match_daddr_tcp_dport_set((size_t)d));
}

/* The destinations of one protocol and port, as interval sets of at most
 * NF_SET_MAX_ELEMS elements, each with its accept rule: allow_tcp_443,
 * allow_tcp_443_2, ...  The ranges are sorted, so each set covers one
 * stretch of the address space.  Why the cap: the kernel's element dump
 * (the readback) walks an interval set's tree from its first element again
 * for every 32 KiB chunk, which is quadratic in the set's size; 50,000
 * prefixes in one set cost 44 ms to read back, in sets of 4,096 about 20,
 * and the smaller trees load faster too.  A refused packet meets one
 * logarithmic lookup per set instead of one in all. */
static int add_set_rules(struct nf_ruleset *rs, int out, const struct policy_dest *d,
			 const struct ipv4_range *all, size_t n, const char *comment)
{
	for (size_t off = 0, k = 1; off < n; off += NF_SET_MAX_ELEMS, k++) {
		size_t m = n - off < NF_SET_MAX_ELEMS ? n - off : NF_SET_MAX_ELEMS;
		char name[NF_NAME_MAX];
		int set;

		if (k == 1)
			snprintf(name, sizeof(name), "allow_%s_%u", nf_l4proto_name(d->l4proto), d->port);
		else
			snprintf(name, sizeof(name), "allow_%s_%u_%zu", nf_l4proto_name(d->l4proto), d->port, k);
		set = ruleset_add_set(rs, name, all + off, m, comment);
		if (set < 0 || add(rs, out, NF_VERDICT_ACCEPT, comment, 2, nf_match_ip_daddr_set((size_t)set),
				   nf_match_dport(d->l4proto, d->port)))
			return -1;
	}
	return 0;
}

/* Destinations sharing a protocol and port become one rule: a plain address
 * match when they are one prefix (the managed gateway), else an interval set. */
static int add_dest_rules(struct nf_ruleset *rs, int out, const struct policy *p,
			  struct cs_error *err)
{
	bool *done = calloc(p->n_dests + 1, sizeof(bool));
	int rc = 0;

	if (!done)
		return cs_fail(err, CS_EXIT_OSERR, "could not build the ruleset model (out of memory)");
	for (size_t i = 0; i < p->n_dests && rc == 0; i++) {
		const struct policy_dest *d = &p->dests[i];
		struct ipv4_range *all = NULL;
		size_t n = 0;
		char comment[NF_COMMENT_MAX] = "";
		uint8_t len;

		if (done[i])
			continue;
		for (size_t j = i; j < p->n_dests && rc == 0; j++) {
			const struct policy_dest *e = &p->dests[j];
			void *na;

			if (e->l4proto != d->l4proto || e->port != d->port)
				continue;
			done[j] = true;
			na = realloc(all, (n + e->n_ranges + 1) * sizeof(*all));
			if (!na) {
				rc = -1;
				break;
			}
			all = na;
			memcpy(all + n, e->ranges, e->n_ranges * sizeof(*all));
			n += e->n_ranges;
			if (!comment[0])
				snprintf(comment, sizeof(comment), "%s", e->origin);
			else if (strlen(comment) + 6 < sizeof(comment) && !strstr(comment, ", ..."))
				strcat(comment, ", ...");
		}
		if (rc) {
			free(all);  /* the ranges gathered before the failed realloc */
			break;
		}
		n = ipv4_ranges_normalise(all, n);
		if (n == 0) {
			/* every name failed to resolve: nothing to allow */
		} else if (n == 1 && ipv4_range_is_prefix(all[0], &len)) {
			rc = add(rs, out, NF_VERDICT_ACCEPT, comment, 2,
				 nf_match_ip_daddr(all[0].first, len),
				 nf_match_dport(d->l4proto, d->port));
		} else {
			rc = add_set_rules(rs, out, d, all, n, comment);
		}
		free(all);
	}
	free(done);
	if (rc)
		cs_fail(err, CS_EXIT_OSERR, "could not build the ruleset model (out of memory or an invalid destination)");
	return rc;
}

int ruleset_build(const struct policy *p, struct nf_ruleset *rs, struct cs_error *err)
{
	int in, fwd, out;
	uint32_t reply = NF_CT_ESTABLISHED | NF_CT_RELATED;

	if (ruleset_init(rs, CS_TABLE_NAME))
		return cs_fail(err, CS_EXIT_OSERR, "could not build the ruleset model");
	in = ruleset_add_chain(rs, "input", NF_HOOK_INPUT, 0, NF_VERDICT_DROP);
	fwd = ruleset_add_chain(rs, "forward", NF_HOOK_FORWARD, 0, NF_VERDICT_DROP);
	out = ruleset_add_chain(rs, "output", NF_HOOK_OUTPUT, 0, NF_VERDICT_DROP);
	if (in < 0 || fwd < 0 || out < 0)
		goto fail;

	if (add(rs, in, NF_VERDICT_ACCEPT, "loopback, IPv4 and IPv6", 1, nf_match_iif("lo")) ||
	    add(rs, in, NF_VERDICT_ACCEPT, "replies to allowed connections", 1, nf_match_ct_state(reply)))
		goto fail;
	if (p->has_host_net &&
	    add(rs, in, NF_VERDICT_ACCEPT, "host network (CLI_SANDBOX_ALLOW_HOST_NETWORK)", 1,
		nf_match_ip_saddr(p->host_net_addr, p->host_net_len)))
		goto fail;

	/* Replies first: the resets our own refusals send are "related" to the
	 * refused flow, and a reset for a refused DNS connection would otherwise
	 * meet the DNS refusals below (which never reset a reset) and vanish.
	 * Nothing else is established: the first packet of every flow passed
	 * the rules below, and the conntrack table is flushed at start. */
	if (p->dns_pinned && add_pinned_dns_guard(rs, out, p))
		goto fail;
	if (add(rs, out, NF_VERDICT_ACCEPT, "replies, related ICMP and our own resets", 1,
		nf_match_ct_state(reply)) ||
	    add_dns_rules(rs, out, p) ||
	    add(rs, out, NF_VERDICT_ACCEPT, "loopback, IPv4 and IPv6", 1, nf_match_oif("lo")))
		goto fail;
	if (p->has_host_net &&
	    add(rs, out, NF_VERDICT_ACCEPT, "host network (CLI_SANDBOX_ALLOW_HOST_NETWORK)", 1,
		nf_match_ip_daddr(p->host_net_addr, p->host_net_len)))
		goto fail;
	if (p->dns_pinned && add_pinned_set_rules(rs, out))
		goto fail;
	if (add_dest_rules(rs, out, p, err))
		goto fail_quiet;
	if (add_refusal(rs, out, "everything else fails fast, IPv6 included", 0, NULL))
		goto fail;
	return 0;
fail:
	cs_fail(err, CS_EXIT_OSERR, "could not build the ruleset model (out of memory or an invalid rule)");
fail_quiet:
	ruleset_free(rs);
	return -1;
}
