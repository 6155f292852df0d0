#include "netfilter/model.h"

#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"

static int copy_name(char *dst, const char *src)
{
	size_t len = strlen(src);

	if (len == 0 || len >= NF_NAME_MAX)
		return -1;
	memcpy(dst, src, len + 1);
	return 0;
}

int ruleset_init(struct nf_ruleset *rs, const char *table)
{
	memset(rs, 0, sizeof(*rs));
	return copy_name(rs->table, table);
}

void ruleset_free(struct nf_ruleset *rs)
{
	for (size_t i = 0; i < rs->n_sets; i++)
		free(rs->sets[i].elems);
	for (size_t i = 0; i < rs->n_chains; i++)
		free(rs->chains[i].rules);
	free(rs->sets);
	free(rs->chains);
	memset(rs, 0, sizeof(*rs));
}

int ruleset_add_chain(struct nf_ruleset *rs, const char *name, enum nf_hook hook,
		      int priority, enum nf_verdict policy)
{
	struct nf_chain *c;

	if (policy != NF_VERDICT_ACCEPT && policy != NF_VERDICT_DROP)
		return -1;
	if (grow_array((void **)&rs->chains, &rs->cap_chains, rs->n_chains, sizeof(*c), 8))
		return -1;
	c = &rs->chains[rs->n_chains];
	memset(c, 0, sizeof(*c));
	if (copy_name(c->name, name))
		return -1;
	c->hook = hook;
	c->priority = priority;
	c->policy = policy;
	return (int)rs->n_chains++;
}

int ruleset_add_set(struct nf_ruleset *rs, const char *name,
		    const struct ipv4_range *ranges, size_t n, const char *comment)
{
	struct nf_set *s;

	if (grow_array((void **)&rs->sets, &rs->cap_sets, rs->n_sets, sizeof(*s), 8))
		return -1;
	s = &rs->sets[rs->n_sets];
	memset(s, 0, sizeof(*s));
	if (copy_name(s->name, name))
		return -1;
	for (size_t i = 0; i < n; i++)
		if (ranges[i].first > ranges[i].last)
			return -1;
	if (n) {
		s->elems = malloc(n * sizeof(*s->elems));
		if (!s->elems)
			return -1;
		memcpy(s->elems, ranges, n * sizeof(*s->elems));
	}
	s->n_elems = ipv4_ranges_normalise(s->elems, n);
	if (comment)
		strncpy(s->comment, comment, sizeof(s->comment) - 1);
	return (int)rs->n_sets++;
}

static bool prefix_ok(struct nf_prefix p)
{
	if (p.len > 32)
		return false;
	return p.len == 32 || (p.addr & (UINT32_MAX >> p.len)) == 0;
}

/* A TCP reset only makes sense for TCP: the rule must say so itself, so no
 * renderer (and no nft) has to add an implicit protocol match. */
static bool rule_is_tcp(const struct nf_rule *r)
{
	for (size_t i = 0; i < r->n_matches; i++) {
		const struct nf_match *m = &r->matches[i];

		if ((m->kind == MATCH_L4PROTO && m->u.l4proto == IPPROTO_TCP) ||
		    (m->kind == MATCH_DPORT && m->u.dport.l4proto == IPPROTO_TCP))
			return true;
	}
	return false;
}

/* The invariants every renderer relies on, checked once here. */
static bool rule_ok(const struct nf_ruleset *rs, const struct nf_rule *r)
{
	if (r->n_matches > NF_MAX_MATCHES)
		return false;
	for (size_t i = 0; i < r->n_matches; i++) {
		const struct nf_match *m = &r->matches[i];

		switch (m->kind) {
		case MATCH_IIF:
		case MATCH_OIF:
			if (!m->u.ifname[0] || memchr(m->u.ifname, '\0', sizeof(m->u.ifname)) == NULL)
				return false;
			break;
		case MATCH_L4PROTO:
			if (m->u.l4proto != IPPROTO_TCP && m->u.l4proto != IPPROTO_UDP)
				return false;
			break;
		case MATCH_CT_STATE:
			if (m->u.ct_state_mask == 0)
				return false;
			break;
		case MATCH_IP_SADDR:
		case MATCH_IP_DADDR:
			if (!prefix_ok(m->u.prefix))
				return false;
			break;
		case MATCH_CT_ORIG_DADDR:
			/* whole addresses only (resolvers): nft encodes prefixes here differently */
			if (m->u.prefix.len != 32)
				return false;
			break;
		case MATCH_IP_DADDR_SET:
			if (m->u.set_index >= rs->n_sets || rs->sets[m->u.set_index].dynamic)
				return false;
			break;
		case MATCH_DADDR_TCP_DPORT_SET:
			if (m->u.set_index >= rs->n_sets || !rs->sets[m->u.set_index].dynamic)
				return false;
			break;
		case MATCH_DPORT:
			if ((m->u.dport.l4proto != IPPROTO_TCP && m->u.dport.l4proto != IPPROTO_UDP) ||
			    m->u.dport.port == 0)
				return false;
			break;
		case MATCH_CT_ORIG_DPORT: {
			/* proto-dst means nothing without a transport protocol before it. */
			bool proto = false;

			for (size_t k = 0; k < i; k++)
				proto = proto || r->matches[k].kind == MATCH_L4PROTO;
			if (!proto || m->u.port == 0)
				return false;
			break;
		}
		case MATCH_SKUID:
		case MATCH_SKUID_NOT:
			break;
		default:
			return false;
		}
	}
	if (r->verdict == NF_VERDICT_REJECT_RESET)
		return rule_is_tcp(r);
	return r->verdict == NF_VERDICT_ACCEPT || r->verdict == NF_VERDICT_DROP ||
	       r->verdict == NF_VERDICT_REJECT_ADMIN || r->verdict == NF_VERDICT_LOG;
}

int ruleset_add_rule(struct nf_ruleset *rs, size_t chain, const struct nf_rule *rule)
{
	struct nf_chain *c;

	if (chain >= rs->n_chains || !rule_ok(rs, rule))
		return -1;
	c = &rs->chains[chain];
	if (grow_array((void **)&c->rules, &c->cap_rules, c->n_rules, sizeof(*rule), 8))
		return -1;
	c->rules[c->n_rules++] = *rule;
	return 0;
}

struct nf_match nf_match_iif(const char *ifname)
{
	struct nf_match m = { .kind = MATCH_IIF };

	strncpy(m.u.ifname, ifname, sizeof(m.u.ifname) - 1);
	return m;
}

struct nf_match nf_match_oif(const char *ifname)
{
	struct nf_match m = nf_match_iif(ifname);

	m.kind = MATCH_OIF;
	return m;
}

struct nf_match nf_match_l4proto(uint8_t proto)
{
	return (struct nf_match){ .kind = MATCH_L4PROTO, .u.l4proto = proto };
}

struct nf_match nf_match_ct_state(uint32_t mask)
{
	return (struct nf_match){ .kind = MATCH_CT_STATE, .u.ct_state_mask = mask };
}

static struct nf_match prefix_match(enum nf_match_kind kind, uint32_t addr, uint8_t len)
{
	return (struct nf_match){ .kind = kind, .u.prefix = { .addr = addr, .len = len } };
}

struct nf_match nf_match_ip_saddr(uint32_t addr, uint8_t len)
{
	return prefix_match(MATCH_IP_SADDR, addr, len);
}

struct nf_match nf_match_ip_daddr(uint32_t addr, uint8_t len)
{
	return prefix_match(MATCH_IP_DADDR, addr, len);
}

struct nf_match nf_match_ct_orig_daddr(uint32_t addr, uint8_t len)
{
	return prefix_match(MATCH_CT_ORIG_DADDR, addr, len);
}

struct nf_match nf_match_ip_daddr_set(size_t set_index)
{
	return (struct nf_match){ .kind = MATCH_IP_DADDR_SET, .u.set_index = set_index };
}

struct nf_match nf_match_dport(uint8_t l4proto, uint16_t port)
{
	return (struct nf_match){ .kind = MATCH_DPORT,
				  .u.dport = { .l4proto = l4proto, .port = port } };
}

struct nf_match nf_match_ct_orig_dport(uint16_t port)
{
	return (struct nf_match){ .kind = MATCH_CT_ORIG_DPORT, .u.port = port };
}

struct nf_match nf_match_skuid(uint32_t uid)
{
	return (struct nf_match){ .kind = MATCH_SKUID, .u.uid = uid };
}

struct nf_match nf_match_skuid_not(uint32_t uid)
{
	return (struct nf_match){ .kind = MATCH_SKUID_NOT, .u.uid = uid };
}

struct nf_match nf_match_daddr_tcp_dport_set(size_t set_index)
{
	return (struct nf_match){ .kind = MATCH_DADDR_TCP_DPORT_SET, .u.set_index = set_index };
}

int ruleset_add_dynamic_set(struct nf_ruleset *rs, const char *name, uint32_t timeout_s, uint32_t size,
			    const char *comment)
{
	int i = ruleset_add_set(rs, name, NULL, 0, comment);

	if (i < 0 || timeout_s == 0 || size == 0)
		return -1;
	rs->sets[i].dynamic = true;
	rs->sets[i].timeout_s = timeout_s;
	rs->sets[i].size = size;
	return i;
}

size_t ruleset_strip_log(struct nf_ruleset *rs)
{
	size_t removed = 0;

	for (size_t i = 0; i < rs->n_chains; i++) {
		struct nf_chain *c = &rs->chains[i];
		size_t kept = 0;

		for (size_t j = 0; j < c->n_rules; j++)
			if (c->rules[j].verdict != NF_VERDICT_LOG)
				c->rules[kept++] = c->rules[j];
		removed += c->n_rules - kept;
		c->n_rules = kept;
	}
	return removed;
}

size_t ruleset_n_rules(const struct nf_ruleset *rs)
{
	size_t n = 0;

	for (size_t i = 0; i < rs->n_chains; i++)
		n += rs->chains[i].n_rules;
	return n;
}

const char *nf_hook_name(enum nf_hook hook)
{
	switch (hook) {
	case NF_HOOK_INPUT: return "input";
	case NF_HOOK_FORWARD: return "forward";
	case NF_HOOK_OUTPUT: return "output";
	}
	return "?";
}

const char *nf_l4proto_name(uint8_t proto)
{
	return proto == IPPROTO_TCP ? "tcp" : proto == IPPROTO_UDP ? "udp" : "?";
}
