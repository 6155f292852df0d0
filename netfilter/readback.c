#include "netfilter/readback.h"

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ipv4.h"
#include "netfilter/nl_query.h"
#include "netfilter/nl_transport.h"

#define ATTR_MAX 32  /* above every NFTA_*_MAX this file reads */

/* Attributes by type; a type that occurs twice makes the table invalid. */
struct attrs {
	const struct nlattr *a[ATTR_MAX + 1];
	bool bad;
};

static void attrs_add(struct attrs *t, const struct nlattr *a)
{
	uint16_t type = mnl_attr_get_type(a);

	if (type > ATTR_MAX || t->a[type])
		t->bad = true;
	else
		t->a[type] = a;
}

static void attrs_of_msg(struct attrs *t, const struct nlmsghdr *nlh)
{
	const struct nlattr *a;

	memset(t, 0, sizeof(*t));
	mnl_attr_for_each(a, nlh, sizeof(struct nfgenmsg))
		attrs_add(t, a);
}

static void attrs_of_nest(struct attrs *t, const struct nlattr *nest)
{
	const struct nlattr *a;

	memset(t, 0, sizeof(*t));
	mnl_attr_for_each_nested(a, nest)
		attrs_add(t, a);
}

/* The string an attribute holds, or NULL unless it is NUL-terminated. */
static const char *str(const struct nlattr *a)
{
	uint16_t len = a ? mnl_attr_get_payload_len(a) : 0;
	const char *s = a ? mnl_attr_get_payload(a) : NULL;

	return len && s[len - 1] == '\0' ? s : NULL;
}

static bool str_is(const struct nlattr *a, const char *want)
{
	const char *s = str(a);

	return s && strcmp(s, want) == 0;
}

/* Same payload bytes (not the padding; not the NLA_F_NESTED bit, which the
 * kernel and libmnl set differently). */
static bool same_bytes(const struct nlattr *x, const struct nlattr *y)
{
	return x && y && mnl_attr_get_payload_len(x) == mnl_attr_get_payload_len(y) &&
	       memcmp(mnl_attr_get_payload(x), mnl_attr_get_payload(y), mnl_attr_get_payload_len(x)) == 0;
}

static bool be32_zero(const struct nlattr *a)
{
	return mnl_attr_get_payload_len(a) == 4 && mnl_attr_get_u32(a) == 0;
}

/* Two nests of scalar attributes hold the same set of attributes with the
 * same bytes; skip (if not 0) is a type only the sender uses. */
static bool same_scalars(const struct nlattr *x, const struct nlattr *y, uint16_t skip)
{
	struct attrs a, b;

	if (!x || !y)
		return false;
	attrs_of_nest(&a, x);
	attrs_of_nest(&b, y);
	if (a.bad || b.bad)
		return false;
	for (int t = 1; t <= ATTR_MAX; t++) {
		if (t == skip)
			continue;
		if ((a.a[t] || b.a[t]) && !same_bytes(a.a[t], b.a[t]))
			return false;
	}
	return true;
}

/* struct nft_data: a value, or a verdict (code and maybe a chain; the
 * batch-local chain id is the sender's only). */
static bool same_data(const struct nlattr *x, const struct nlattr *y)
{
	struct attrs a, b;

	if (!x || !y)
		return false;
	attrs_of_nest(&a, x);
	attrs_of_nest(&b, y);
	if (a.bad || b.bad)
		return false;
	if (a.a[NFTA_DATA_VALUE] || b.a[NFTA_DATA_VALUE])
		return same_bytes(a.a[NFTA_DATA_VALUE], b.a[NFTA_DATA_VALUE]) &&
		       !a.a[NFTA_DATA_VERDICT] && !b.a[NFTA_DATA_VERDICT];
	return same_scalars(a.a[NFTA_DATA_VERDICT], b.a[NFTA_DATA_VERDICT], NFTA_VERDICT_CHAIN_ID);
}

/* Which attributes of an expression hold struct nft_data. */
static bool is_data_attr(const char *expr, uint16_t type)
{
	if (strcmp(expr, "cmp") == 0)
		return type == NFTA_CMP_DATA;
	if (strcmp(expr, "bitwise") == 0)
		return type == NFTA_BITWISE_MASK || type == NFTA_BITWISE_XOR || type == NFTA_BITWISE_DATA;
	if (strcmp(expr, "immediate") == 0)
		return type == NFTA_IMMEDIATE_DATA;
	if (strcmp(expr, "range") == 0)
		return type == NFTA_RANGE_FROM_DATA || type == NFTA_RANGE_TO_DATA;
	return false;
}

/* An attribute one side may leave out because its value is zero, the
 * default: the kernel omits some zeros (the log's queue threshold), older
 * kernels do not report others (bitwise op); we send them explicitly. */
static bool zero_default(const char *expr, uint16_t type)
{
	return (strcmp(expr, "bitwise") == 0 && type == NFTA_BITWISE_OP) ||
	       (strcmp(expr, "lookup") == 0 && type == NFTA_LOOKUP_FLAGS) ||
	       (strcmp(expr, "log") == 0 && type == NFTA_LOG_QTHRESHOLD) ||
	       (strcmp(expr, "limit") == 0 && type == NFTA_LIMIT_FLAGS);
}

/* An attribute whose value is all zero bytes. */
static bool all_zero(const struct nlattr *a)
{
	const unsigned char *p = mnl_attr_get_payload(a);

	for (uint16_t i = 0; i < mnl_attr_get_payload_len(a); i++)
		if (p[i])
			return false;
	return mnl_attr_get_payload_len(a) > 0;
}

/* One expression as the kernel reports it against one as it was sent:
 * the same name, and every attribute of either on the other with the same
 * value.  The lookup's batch-local set id is the sender's only. */
static bool same_expr(const struct nlattr *got, const struct nlattr *sent)
{
	struct attrs ge, se, gd, sd;
	const char *name;

	attrs_of_nest(&ge, got);
	attrs_of_nest(&se, sent);
	name = str(ge.a[NFTA_EXPR_NAME]);
	if (ge.bad || se.bad || !name || !str_is(se.a[NFTA_EXPR_NAME], name))
		return false;
	if (!ge.a[NFTA_EXPR_DATA] || !se.a[NFTA_EXPR_DATA])
		return !ge.a[NFTA_EXPR_DATA] && !se.a[NFTA_EXPR_DATA];
	attrs_of_nest(&gd, ge.a[NFTA_EXPR_DATA]);
	attrs_of_nest(&sd, se.a[NFTA_EXPR_DATA]);
	if (gd.bad || sd.bad)
		return false;
	if (strcmp(name, "lookup") == 0)
		sd.a[NFTA_LOOKUP_SET_ID] = NULL;
	for (uint16_t t = 1; t <= ATTR_MAX; t++) {
		const struct nlattr *g = gd.a[t], *s = sd.a[t];

		if (!g && !s)
			continue;
		if (!g || !s) {
			if (zero_default(name, t) && all_zero(g ? g : s))
				continue;
			return false;
		}
		if (is_data_attr(name, t) ? !same_data(g, s) : !same_bytes(g, s))
			return false;
	}
	return true;
}

/* Two NFTA_RULE_EXPRESSIONS lists: the same expressions in the same order. */
static bool same_exprs(const struct nlattr *got, const struct nlattr *sent)
{
	const struct nlattr *g, *s;
	const char *gend, *send;

	if (!got || !sent)
		return false;
	g = mnl_attr_get_payload(got);
	s = mnl_attr_get_payload(sent);
	gend = (const char *)g + mnl_attr_get_payload_len(got);
	send = (const char *)s + mnl_attr_get_payload_len(sent);
	for (;;) {
		bool gok = mnl_attr_ok(g, (int)(gend - (const char *)g));
		bool sok = mnl_attr_ok(s, (int)(send - (const char *)s));

		if (!gok || !sok)
			return gok == sok;
		if (!same_expr(g, s))
			return false;
		g = mnl_attr_next(g);
		s = mnl_attr_next(s);
	}
}

/* What the batch sent, by pointers into it (it outlives the readback). */
struct sent {
	const struct nlattr **chain_hook, **chain_policy, **chain_type;  /* [n_chains] */
	const struct nlattr **set_flags, **set_key_type, **set_key_len;  /* [n_sets] */
	const struct nlattr **rules;  /* rules of chain c from rules[rule_off[c]] */
	size_t *rule_off, *rule_fill;
};

struct readback {
	const struct nf_ruleset *rs;
	struct cs_error *err;
	struct sent sent;
	bool failed;
	bool table_seen;
	bool *chain_seen, *set_seen;
	size_t *rules_seen;
	/* the elements of the set being read: key << 1 | (start ? 1 : 0) */
	uint64_t *keys;
	size_t n_keys, max_keys;
	size_t set;
};

static int mismatch(struct readback *rb, const char *what, const char *name, const char *how)
{
	if (!rb->failed)
		cs_fail(rb->err, CS_EXIT_OSERR, "the firewall read back from the kernel differs from the plan: %s%s%s%s%s; no command is started",
			what, name ? " " : "", name ? name : "", how ? " " : "", how ? how : "");
	rb->failed = true;
	return MNL_CB_ERROR;
}

static long chain_index(const struct nf_ruleset *rs, const char *name)
{
	for (size_t i = 0; name && i < rs->n_chains; i++)
		if (strcmp(rs->chains[i].name, name) == 0)
			return (long)i;
	return -1;
}

static long set_index(const struct nf_ruleset *rs, const char *name)
{
	for (size_t i = 0; name && i < rs->n_sets; i++)
		if (strcmp(rs->sets[i].name, name) == 0)
			return (long)i;
	return -1;
}

static uint16_t nft_msg(const struct nlmsghdr *nlh)
{
	return NFNL_MSG_TYPE(nlh->nlmsg_type);
}

/* The batch, walked once: chains, sets and rules as they were sent. */
static int collect_sent(const struct nlmsghdr *nlh, void *data)
{
	struct readback *rb = data;
	struct sent *s = &rb->sent;
	struct attrs t;
	long i;

	if (NFNL_SUBSYS_ID(nlh->nlmsg_type) != NFNL_SUBSYS_NFTABLES)
		return 0;
	attrs_of_msg(&t, nlh);
	switch (nft_msg(nlh)) {
	case NFT_MSG_NEWCHAIN:
		i = chain_index(rb->rs, str(t.a[NFTA_CHAIN_NAME]));
		if (i < 0)
			return -1;
		s->chain_hook[i] = t.a[NFTA_CHAIN_HOOK];
		s->chain_policy[i] = t.a[NFTA_CHAIN_POLICY];
		s->chain_type[i] = t.a[NFTA_CHAIN_TYPE];
		break;
	case NFT_MSG_NEWSET:
		i = set_index(rb->rs, str(t.a[NFTA_SET_NAME]));
		if (i < 0)
			return -1;
		s->set_flags[i] = t.a[NFTA_SET_FLAGS];
		s->set_key_type[i] = t.a[NFTA_SET_KEY_TYPE];
		s->set_key_len[i] = t.a[NFTA_SET_KEY_LEN];
		break;
	case NFT_MSG_NEWRULE:
		i = chain_index(rb->rs, str(t.a[NFTA_RULE_CHAIN]));
		if (i < 0 || s->rule_fill[i] >= rb->rs->chains[i].n_rules)
			return -1;
		s->rules[s->rule_off[i] + s->rule_fill[i]++] = t.a[NFTA_RULE_EXPRESSIONS];
		break;
	}
	return 0;
}

static int table_cb(const struct nlmsghdr *nlh, void *data)
{
	struct readback *rb = data;
	struct attrs t;

	attrs_of_msg(&t, nlh);
	if (t.bad || !str_is(t.a[NFTA_TABLE_NAME], rb->rs->table))
		return mismatch(rb, "unexpected table", str(t.a[NFTA_TABLE_NAME]), NULL);
	/* Not dormant (a dormant table filters nothing), not owned by our
	 * socket (an owned table vanishes when it closes). */
	if ((t.a[NFTA_TABLE_FLAGS] && !be32_zero(t.a[NFTA_TABLE_FLAGS])) || t.a[NFTA_TABLE_OWNER])
		return mismatch(rb, "table", rb->rs->table, "is dormant or owned");
	rb->table_seen = true;
	return MNL_CB_OK;
}

static int chain_cb(const struct nlmsghdr *nlh, void *data)
{
	struct readback *rb = data;
	const struct sent *s = &rb->sent;
	struct attrs t, hook;
	const char *name;
	long i;

	attrs_of_msg(&t, nlh);
	name = str(t.a[NFTA_CHAIN_NAME]);
	if (t.bad)
		return mismatch(rb, "an unreadable chain in table", rb->rs->table, NULL);
	if (!str_is(t.a[NFTA_CHAIN_TABLE], rb->rs->table))
		return MNL_CB_OK;  /* another table's (not every kernel filters the dump) */
	i = chain_index(rb->rs, name);
	if (i < 0 || rb->chain_seen[i])
		return mismatch(rb, "unexpected chain", name, NULL);
	rb->chain_seen[i] = true;
	if (!t.a[NFTA_CHAIN_HOOK])
		return mismatch(rb, "chain", name, "is not a base chain");
	attrs_of_nest(&hook, t.a[NFTA_CHAIN_HOOK]);
	/* hook number and priority as sent, and no device (netdev hooks) */
	if (!same_scalars(t.a[NFTA_CHAIN_HOOK], s->chain_hook[i], 0) || hook.a[NFTA_HOOK_DEV] ||
	    hook.a[NFTA_HOOK_DEVS])
		return mismatch(rb, "chain", name, "has another hook or priority");
	if (!same_bytes(t.a[NFTA_CHAIN_POLICY], s->chain_policy[i]))
		return mismatch(rb, "chain", name, "has another policy");
	if (!same_bytes(t.a[NFTA_CHAIN_TYPE], s->chain_type[i]))
		return mismatch(rb, "chain", name, "has another type");
	if (t.a[NFTA_CHAIN_FLAGS] && (mnl_attr_get_payload_len(t.a[NFTA_CHAIN_FLAGS]) != 4 ||
				      (ntohl(mnl_attr_get_u32(t.a[NFTA_CHAIN_FLAGS])) & ~(uint32_t)NFT_CHAIN_BASE)))
		return mismatch(rb, "chain", name, "has flags that were not sent");
	return MNL_CB_OK;
}

static int rule_cb(const struct nlmsghdr *nlh, void *data)
{
	struct readback *rb = data;
	struct attrs t;
	const char *chain;
	size_t n;
	long i;

	attrs_of_msg(&t, nlh);
	chain = str(t.a[NFTA_RULE_CHAIN]);
	if (t.bad)
		return mismatch(rb, "an unreadable rule in table", rb->rs->table, NULL);
	if (!str_is(t.a[NFTA_RULE_TABLE], rb->rs->table))
		return MNL_CB_OK;  /* another table's (not every kernel filters the dump) */
	i = chain_index(rb->rs, chain);
	if (i < 0 || rb->rules_seen[i] >= rb->rs->chains[i].n_rules)
		return mismatch(rb, "an extra rule in chain", chain, NULL);
	/* Rules come back in chain order: the n-th against the n-th sent. */
	n = rb->rules_seen[i]++;
	if (!same_exprs(t.a[NFTA_RULE_EXPRESSIONS], rb->sent.rules[rb->sent.rule_off[i] + n])) {
		char how[NF_COMMENT_MAX + 32];

		snprintf(how, sizeof(how), "at rule %zu (%s)", n + 1, rb->rs->chains[i].rules[n].comment);
		return mismatch(rb, "a rule differs in chain", chain, how);
	}
	return MNL_CB_OK;
}

static int set_cb(const struct nlmsghdr *nlh, void *data)
{
	struct readback *rb = data;
	const struct sent *s = &rb->sent;
	struct attrs t;
	const char *name;
	long i;

	attrs_of_msg(&t, nlh);
	name = str(t.a[NFTA_SET_NAME]);
	if (t.bad)
		return mismatch(rb, "an unreadable set in table", rb->rs->table, NULL);
	if (!str_is(t.a[NFTA_SET_TABLE], rb->rs->table))
		return MNL_CB_OK;  /* another table's (not every kernel filters the dump) */
	i = set_index(rb->rs, name);
	if (i < 0 || rb->set_seen[i])
		return mismatch(rb, "unexpected set", name, NULL);
	rb->set_seen[i] = true;
	/* flags (interval, no timeout), key as sent; not a map, no object, no
	 * expressions attached */
	if (!same_bytes(t.a[NFTA_SET_FLAGS], s->set_flags[i]) ||
	    !same_bytes(t.a[NFTA_SET_KEY_TYPE], s->set_key_type[i]) ||
	    !same_bytes(t.a[NFTA_SET_KEY_LEN], s->set_key_len[i]) || t.a[NFTA_SET_DATA_TYPE] ||
	    t.a[NFTA_SET_OBJ_TYPE] || t.a[NFTA_SET_EXPR] || t.a[NFTA_SET_EXPRESSIONS])
		return mismatch(rb, "set", name, "has other flags, key or data than sent");
	if (rb->rs->sets[i].dynamic) {
		/* the pinning resolver's set, by its definition: its timeout
		 * and its size cap as planned */
		const struct nf_set *m = &rb->rs->sets[i];
		struct attrs d;

		if (!t.a[NFTA_SET_TIMEOUT] || mnl_attr_get_payload_len(t.a[NFTA_SET_TIMEOUT]) != 8 ||
		    be64toh(mnl_attr_get_u64(t.a[NFTA_SET_TIMEOUT])) != (uint64_t)m->timeout_s * 1000u)
			return mismatch(rb, "set", name, "has another timeout than planned");
		if (!t.a[NFTA_SET_DESC])
			return mismatch(rb, "set", name, "has no size cap");
		attrs_of_nest(&d, t.a[NFTA_SET_DESC]);
		if (d.bad || !d.a[NFTA_SET_DESC_SIZE] || mnl_attr_get_payload_len(d.a[NFTA_SET_DESC_SIZE]) != 4 ||
		    ntohl(mnl_attr_get_u32(d.a[NFTA_SET_DESC_SIZE])) != m->size)
			return mismatch(rb, "set", name, "has another size cap than planned");
	} else if (t.a[NFTA_SET_TIMEOUT]) {
		return mismatch(rb, "set", name, "has a timeout that was not sent");
	}
	return MNL_CB_OK;
}

/* An element of the pinning resolver's set: an 8-byte key (address .
 * port) outside the forbidden blocks that expires within the set's
 * timeout, and nothing else.  The guard rule refuses those blocks whatever the set
 * holds; this proves the set holds none of them either. */
static int one_pinned_elem(struct readback *rb, const struct nlattr *elem)
{
	const struct nf_set *m = &rb->rs->sets[rb->set];
	const struct nlattr *a, *value = NULL;
	struct attrs e;
	uint32_t addr;

	attrs_of_nest(&e, elem);
	for (uint16_t t = 0; t <= ATTR_MAX; t++)
		if (e.a[t] && t != NFTA_SET_ELEM_KEY && t != NFTA_SET_ELEM_TIMEOUT && t != NFTA_SET_ELEM_EXPIRATION)
			return mismatch(rb, "set", m->name, "has an element with more than a key, a timeout and an expiration");
	/* Every element must expire.  The kernel reports an element's own
	 * timeout only when it differs from the set's (the resolver's equals
	 * it), and its time left always: the expiration is required, a
	 * timeout when present may not exceed the set's, nor the time left. */
	if (e.bad || !e.a[NFTA_SET_ELEM_KEY] || !e.a[NFTA_SET_ELEM_EXPIRATION] ||
	    mnl_attr_get_payload_len(e.a[NFTA_SET_ELEM_EXPIRATION]) != 8)
		return mismatch(rb, "set", m->name, "has an element without an expiration");
	if (e.a[NFTA_SET_ELEM_TIMEOUT] && (mnl_attr_get_payload_len(e.a[NFTA_SET_ELEM_TIMEOUT]) != 8 ||
					   be64toh(mnl_attr_get_u64(e.a[NFTA_SET_ELEM_TIMEOUT])) > (uint64_t)m->timeout_s * 1000u))
		return mismatch(rb, "set", m->name, "has an element with a longer timeout than the set's");
	if (be64toh(mnl_attr_get_u64(e.a[NFTA_SET_ELEM_EXPIRATION])) > (uint64_t)m->timeout_s * 1000u)
		return mismatch(rb, "set", m->name, "has an element that expires later than the set's timeout");
	mnl_attr_for_each_nested(a, e.a[NFTA_SET_ELEM_KEY]) {
		if (mnl_attr_get_type(a) != NFTA_DATA_VALUE || value)
			return mismatch(rb, "set", m->name, "has an element with another key");
		value = a;
	}
	if (!value || mnl_attr_get_payload_len(value) != 8)
		return mismatch(rb, "set", m->name, "has an element with another key");
	memcpy(&addr, mnl_attr_get_payload(value), 4);
	if (ipv4_forbidden_destination(ntohl(addr)))
		return mismatch(rb, "set", m->name, "holds a forbidden address");
	if (++rb->n_keys > m->size)
		return mismatch(rb, "set", m->name, "holds more elements than its size cap");
	return MNL_CB_OK;
}

/* One element: a 4-byte key and at most the interval-end flag; anything
 * else (data, timeout, expressions, a range end) was never sent.  Read
 * without attribute tables: there are tens of thousands of them. */
static int one_elem(struct readback *rb, const struct nlattr *elem)
{
	const char *name = rb->rs->sets[rb->set].name;
	const struct nlattr *a, *key = NULL, *flags_attr = NULL, *value = NULL;
	uint32_t flags = 0, k;

	mnl_attr_for_each_nested(a, elem) {
		uint16_t t = mnl_attr_get_type(a);

		if (t == NFTA_SET_ELEM_KEY && !key)
			key = a;
		else if (t == NFTA_SET_ELEM_FLAGS && !flags_attr)
			flags_attr = a;
		else
			return mismatch(rb, "set", name, "has an element with more than a key");
	}
	if (key)
		mnl_attr_for_each_nested(a, key) {
			if (mnl_attr_get_type(a) != NFTA_DATA_VALUE || value)
				return mismatch(rb, "set", name, "has an element with another key");
			value = a;
		}
	if (!value || mnl_attr_get_payload_len(value) != 4)
		return mismatch(rb, "set", name, "has an element with another key");
	if (flags_attr) {
		if (mnl_attr_get_payload_len(flags_attr) != 4)
			return mismatch(rb, "set", name, "has an unreadable element");
		flags = ntohl(mnl_attr_get_u32(flags_attr));
	}
	if (flags & ~(uint32_t)NFT_SET_ELEM_INTERVAL_END)
		return mismatch(rb, "set", name, "has an element with flags that were not sent");
	if (rb->n_keys >= rb->max_keys)
		return mismatch(rb, "set", name, "has more elements than planned");
	memcpy(&k, mnl_attr_get_payload(value), 4);
	rb->keys[rb->n_keys++] = (uint64_t)ntohl(k) << 1 | (flags ? 0 : 1);
	return MNL_CB_OK;
}

static int elems_cb(const struct nlmsghdr *nlh, void *data)
{
	struct readback *rb = data;
	const char *name = rb->rs->sets[rb->set].name;
	const struct nlattr *elem;
	struct attrs t;

	attrs_of_msg(&t, nlh);
	if (t.bad || !str_is(t.a[NFTA_SET_ELEM_LIST_TABLE], rb->rs->table) ||
	    !str_is(t.a[NFTA_SET_ELEM_LIST_SET], name))
		return mismatch(rb, "elements of another set in the dump of set", name, NULL);
	if (!t.a[NFTA_SET_ELEM_LIST_ELEMENTS])
		return MNL_CB_OK;
	mnl_attr_for_each_nested(elem, t.a[NFTA_SET_ELEM_LIST_ELEMENTS])
		if ((rb->rs->sets[rb->set].dynamic ? one_pinned_elem(rb, elem) : one_elem(rb, elem)) != MNL_CB_OK)
			return MNL_CB_ERROR;
	return MNL_CB_OK;
}

/* The i-th of the keys the model's set becomes, in ascending order, as the
 * netlink renderer sends them: half-open intervals, a leading 0.0.0.0 end
 * when the first range does not start at 0, no end after a range that
 * reaches the top of the address space. */
static size_t expected_count(const struct nf_set *s)
{
	if (!s->n_elems)
		return 0;
	return (s->elems[0].first != 0) + 2 * s->n_elems - (s->elems[s->n_elems - 1].last == UINT32_MAX);
}

static uint64_t expected_key(const struct nf_set *s, size_t i)
{
	const struct ipv4_range *r;

	if (s->elems[0].first != 0) {
		if (i == 0)
			return 0;  /* key 0, an end */
		i--;
	}
	r = &s->elems[i / 2];
	return i % 2 == 0 ? (uint64_t)r->first << 1 | 1 : (uint64_t)((uint64_t)r->last + 1) << 1;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The kernel's rbtree reports its elements from the highest key down; they
 * are compared where they are.  Any other order (another kernel, another
 * set backend) is sorted first. */
static int compare_elements(struct readback *rb, const struct nf_set *set)
{
	size_t n = rb->n_keys;
	bool down = true, up = true;

	if (n != expected_count(set))
		return mismatch(rb, "set", set->name, n < expected_count(set) ? "is missing elements" : "has more elements than planned");
	for (size_t i = 1; i < n && (down || up); i++) {
		down = down && rb->keys[i] < rb->keys[i - 1];
		up = up && rb->keys[i] > rb->keys[i - 1];
	}
	if (!down && !up)
		qsort(rb->keys, n, sizeof(*rb->keys), cmp_u64);
	for (size_t i = 0; i < n; i++)
		if (rb->keys[down && !up ? n - 1 - i : i] != expected_key(set, i))
			return mismatch(rb, "set", set->name, "has other elements than planned");
	return 0;
}

static int read_elements(struct readback *rb, struct nl_query *q, size_t i)
{
	char buf[NL_QUERY_REQ_MAX];
	const struct nf_set *set = &rb->rs->sets[i];
	struct nlmsghdr *req = nl_query_request(q, buf, NFT_MSG_GETSETELEM, true);
	int rc;

	mnl_attr_put_strz(req, NFTA_SET_ELEM_LIST_TABLE, rb->rs->table);
	mnl_attr_put_strz(req, NFTA_SET_ELEM_LIST_SET, set->name);
	rb->set = i;
	rb->n_keys = 0;
	if (expected_count(set) + 1 > rb->max_keys) {
		free(rb->keys);
		rb->max_keys = expected_count(set) + 1;  /* one more shows "more than planned" */
		rb->keys = malloc(rb->max_keys * sizeof(*rb->keys));
		if (!rb->keys) {
			rb->max_keys = 0;
			return cs_fail(rb->err, CS_EXIT_OSERR, "out of memory reading the firewall back");
		}
	}
	rc = nl_query_run(q, req, elems_cb, rb, "the set elements", rb->err);
	if (rc > 0)
		return mismatch(rb, "set", set->name, "cannot be read");
	/* the pinned set's elements are the resolver's, judged one by one */
	return rc || (!set->dynamic && compare_elements(rb, set));
}

/* A dump of one kind of object, filtered to our table where the kernel
 * can (rules and sets; chains come for every inet table). */
static int dump(struct readback *rb, struct nl_query *q, uint16_t type, uint16_t table_attr, nl_reply_fn fn,
		const char *what)
{
	char buf[NL_QUERY_REQ_MAX];
	struct nlmsghdr *req = nl_query_request(q, buf, type, true);
	int rc;

	mnl_attr_put_strz(req, table_attr, rb->rs->table);
	rc = nl_query_run(q, req, fn, rb, what, rb->err);
	if (rc > 0)
		return nl_fail(rb->err, rc, what, NULL);
	return rc;
}

/* The elements of sets first, first + step, ...; 0 or -1 (err says why). */
static int read_sets(struct readback *rb, struct nl_query *q, size_t first, size_t step)
{
	for (size_t i = first; i < rb->rs->n_sets; i += step)
		if (read_elements(rb, q, i))
			return -1;
	return 0;
}

/* A second reader of set elements, on a socket and a query of its own.
 * The kernel does a dump's work in the reader's recvmsg, and it walks an
 * interval set from its first element again for every chunk: with the
 * sets of a large list read two at a time, that work runs on two CPUs
 * (50,000 prefixes in 11 sets: 22 -> 13 ms).  Only worth a thread and a
 * socket for many elements. */
#define PARALLEL_MIN_KEYS (4 * NF_SET_MAX_ELEMS)

struct elem_reader {
	struct readback rb;     /* its own keys, error and failure flag */
	struct cs_error err;
	struct mnl_socket *nl;
	struct nl_query q;
	int rc;
};

static void *elem_reader_run(void *arg)
{
	struct elem_reader *r = arg;

	r->rc = read_sets(&r->rb, &r->q, 1, 2);
	return NULL;
}

static bool start_reader(struct elem_reader *r, const struct readback *rb, pthread_t *tid)
{
	size_t keys = 0;

	for (size_t i = 0; i < rb->rs->n_sets; i++)
		keys += expected_count(&rb->rs->sets[i]);
	if (rb->rs->n_sets < 2 || keys < PARALLEL_MIN_KEYS)
		return false;
	memset(r, 0, sizeof(*r));
	r->rb.rs = rb->rs;
	r->rb.err = &r->err;
	r->nl = nl_open(&r->err);
	if (!r->nl)
		return false;  /* then this thread reads every set itself */
	if (nl_query_init(&r->q, r->nl, &r->err) == 0) {
		if (pthread_create(tid, NULL, elem_reader_run, r) == 0)
			return true;
		nl_query_fini(&r->q);
	}
	mnl_socket_close(r->nl);
	return false;
}

/* The reader's result joins this one's: its first error, and the
 * generation its replies carried (a different one is a moved read). */
static int join_reader(struct elem_reader *r, pthread_t tid, struct readback *rb, struct nl_query *q, int rc)
{
	pthread_join(tid, NULL);
	if (rc == 0 && r->rc != 0) {
		*rb->err = r->err;
		rb->failed = true;
		rc = -1;
	}
	if (r->q.moved || (r->q.pinned && q->pinned && r->q.pin_gen != q->pin_gen))
		q->moved = true;
	else if (r->q.pinned && !q->pinned) {
		q->pinned = true;
		q->pin_gen = r->q.pin_gen;
	}
	nl_query_fini(&r->q);
	mnl_socket_close(r->nl);
	free(r->rb.keys);
	return rc;
}

static int read_all_elements(struct readback *rb, struct nl_query *q)
{
	struct elem_reader r;
	pthread_t tid;

	if (!start_reader(&r, rb, &tid))
		return read_sets(rb, q, 0, 1);
	return join_reader(&r, tid, rb, q, read_sets(rb, q, 0, 2));
}

/* One complete read; its result holds only if the generation stood still. */
static int read_all(struct readback *rb, struct nl_query *q)
{
	const struct nf_ruleset *rs = rb->rs;
	char buf[NL_QUERY_REQ_MAX];
	struct nlmsghdr *req = nl_query_request(q, buf, NFT_MSG_GETTABLE, false);
	int rc;

	mnl_attr_put_strz(req, NFTA_TABLE_NAME, rs->table);
	rc = nl_query_run(q, req, table_cb, rb, "the table", rb->err);
	if (rc > 0 || (rc == 0 && !rb->table_seen))
		return mismatch(rb, "table", rs->table, "is missing");
	if (rc || dump(rb, q, NFT_MSG_GETCHAIN, NFTA_CHAIN_TABLE, chain_cb, "the chains") ||
	    dump(rb, q, NFT_MSG_GETRULE, NFTA_RULE_TABLE, rule_cb, "the rules") ||
	    dump(rb, q, NFT_MSG_GETSET, NFTA_SET_TABLE, set_cb, "the sets"))
		return -1;
	for (size_t i = 0; i < rs->n_chains; i++) {
		if (!rb->chain_seen[i])
			return mismatch(rb, "chain", rs->chains[i].name, "is missing");
		if (rb->rules_seen[i] != rs->chains[i].n_rules)
			return mismatch(rb, "chain", rs->chains[i].name, "is missing rules");
	}
	for (size_t i = 0; i < rs->n_sets; i++)
		if (!rb->set_seen[i])
			return mismatch(rb, "set", rs->sets[i].name, "is missing");
	return read_all_elements(rb, q);
}

static int sent_alloc(struct readback *rb, const struct nl_batch *b)
{
	const struct nf_ruleset *rs = rb->rs;
	struct sent *s = &rb->sent;
	size_t n_rules = 0, nc = rs->n_chains + 1, ns = rs->n_sets + 1;

	for (size_t i = 0; i < rs->n_chains; i++)
		n_rules += rs->chains[i].n_rules;
	s->chain_hook = calloc(nc * 3, sizeof(*s->chain_hook));
	s->set_flags = calloc(ns * 3, sizeof(*s->set_flags));
	s->rules = calloc(n_rules + 1, sizeof(*s->rules));
	s->rule_off = calloc(nc * 3, sizeof(*s->rule_off));
	rb->chain_seen = calloc(nc + ns, sizeof(bool));
	if (!s->chain_hook || !s->set_flags || !s->rules || !s->rule_off || !rb->chain_seen)
		return cs_fail(rb->err, CS_EXIT_OSERR, "out of memory reading the firewall back");
	s->chain_policy = s->chain_hook + nc;
	s->chain_type = s->chain_hook + 2 * nc;
	s->set_key_type = s->set_flags + ns;
	s->set_key_len = s->set_flags + 2 * ns;
	s->rule_fill = s->rule_off + nc;
	rb->rules_seen = s->rule_off + 2 * nc;
	rb->set_seen = rb->chain_seen + nc;
	for (size_t i = 0; i < rs->n_chains; i++)
		s->rule_off[i + 1] = s->rule_off[i] + rs->chains[i].n_rules;
	if (nl_batch_foreach(b, collect_sent, rb))
		return cs_fail(rb->err, CS_EXIT_OSERR, "the netlink batch does not match the plan; no command is started");
	for (size_t i = 0; i < rs->n_chains; i++)
		if (!s->chain_hook[i] || s->rule_fill[i] != rs->chains[i].n_rules)
			return cs_fail(rb->err, CS_EXIT_OSERR, "the netlink batch does not match the plan; no command is started");
	for (size_t i = 0; i < rs->n_sets; i++)
		if (!s->set_flags[i])
			return cs_fail(rb->err, CS_EXIT_OSERR, "the netlink batch does not match the plan; no command is started");
	return 0;
}

static void sent_free(struct readback *rb)
{
	free(rb->sent.chain_hook);
	free(rb->sent.set_flags);
	free(rb->sent.rules);
	free(rb->sent.rule_off);
	free(rb->chain_seen);
	free(rb->keys);
}

int readback_verify(struct mnl_socket *nl, const struct nf_ruleset *rs, const struct nl_batch *b,
		    struct cs_error *err)
{
	struct readback rb = { .rs = rs, .err = err };
	struct nl_query q;
	int rc = -1;

	if (sent_alloc(&rb, b) || nl_query_init(&q, nl, err)) {
		sent_free(&rb);
		return -1;
	}
	/* Twice at most: a read that another commit overtook says nothing
	 * about either generation, so it is done once more. */
	for (int attempt = 0; attempt < 2; attempt++) {
		uint32_t before, after;
		bool still;

		rb.failed = rb.table_seen = false;
		memset(rb.chain_seen, 0, (rs->n_chains + 1 + rs->n_sets + 1) * sizeof(bool));
		memset(rb.rules_seen, 0, (rs->n_chains + 1) * sizeof(size_t));
		q.pinned = q.moved = false;
		if (nl_query_genid(&q, &before, err))
			break;
		rc = read_all(&rb, &q);
		if (nl_query_genid(&q, &after, err)) {
			rc = -1;
			break;
		}
		still = after == before && !q.moved && (!q.pinned || q.pin_gen == (uint16_t)before);
		if (still)
			break;
		rc = cs_fail(err, CS_EXIT_OSERR, "the ruleset kept changing while it was read back (generation %u, then %u); no command is started",
			     before, after);
	}
	nl_query_fini(&q);
	sent_free(&rb);
	return rc;
}
