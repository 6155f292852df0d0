#include "netfilter/render_netlink.h"

#include <arpa/inet.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>

#include <libnftnl/expr.h>
#include <libnftnl/udata.h>

/* nft's data type number for ipv4_addr keys, and its "big endian" byte order
 * tag stored in the set's user data (both are what nft itself sends). */
#define NFT_TYPE_IPADDR 7
#define NFT_TYPE_INET_SERVICE 13
#define NFT_TYPE_BITS 6   /* a concatenation's type: each field's type, shifted in */
#define NFT_BYTEORDER_BIG_ENDIAN 2

static int put(struct nftnl_rule *r, struct nftnl_expr *e)
{
	if (!e)
		return -1;
	nftnl_rule_add_expr(r, e);
	return 0;
}

static struct nftnl_expr *meta(uint32_t key)
{
	struct nftnl_expr *e = nftnl_expr_alloc("meta");

	if (e) {
		nftnl_expr_set_u32(e, NFTNL_EXPR_META_KEY, key);
		nftnl_expr_set_u32(e, NFTNL_EXPR_META_DREG, NFT_REG_1);
	}
	return e;
}

static struct nftnl_expr *cmp(enum nft_cmp_ops op, const void *data, uint32_t len)
{
	struct nftnl_expr *e = nftnl_expr_alloc("cmp");

	if (e) {
		nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_SREG, NFT_REG_1);
		nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_OP, op);
		nftnl_expr_set(e, NFTNL_EXPR_CMP_DATA, data, len);
	}
	return e;
}

static struct nftnl_expr *payload_to(enum nft_payload_bases base, uint32_t offset, uint32_t len, uint32_t dreg)
{
	struct nftnl_expr *e = nftnl_expr_alloc("payload");

	if (e) {
		nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_DREG, dreg);
		nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_BASE, base);
		nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_OFFSET, offset);
		nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_LEN, len);
	}
	return e;
}

static struct nftnl_expr *bitwise(const void *mask, const void *xor, uint32_t len)
{
	struct nftnl_expr *e = nftnl_expr_alloc("bitwise");

	if (e) {
		nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_SREG, NFT_REG_1);
		nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_DREG, NFT_REG_1);
		nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_LEN, len);
		nftnl_expr_set(e, NFTNL_EXPR_BITWISE_MASK, mask, len);
		nftnl_expr_set(e, NFTNL_EXPR_BITWISE_XOR, xor, len);
	}
	return e;
}

static struct nftnl_expr *ct(enum nft_ct_keys key, bool original)
{
	struct nftnl_expr *e = nftnl_expr_alloc("ct");

	if (e) {
		nftnl_expr_set_u32(e, NFTNL_EXPR_CT_KEY, key);
		if (original)
			nftnl_expr_set_u8(e, NFTNL_EXPR_CT_DIR, 0 /* IP_CT_DIR_ORIGINAL */);
		nftnl_expr_set_u32(e, NFTNL_EXPR_CT_DREG, NFT_REG_1);
	}
	return e;
}

static int match_u8(struct nftnl_rule *r, uint32_t meta_key, uint8_t value)
{
	return put(r, meta(meta_key)) || put(r, cmp(NFT_CMP_EQ, &value, 1));
}

static struct nftnl_expr *payload(enum nft_payload_bases base, uint32_t offset, uint32_t len)
{
	return payload_to(base, offset, len, NFT_REG_1);
}

static struct nftnl_expr *lookup(const struct nf_ruleset *rs, size_t set_index)
{
	struct nftnl_expr *e = nftnl_expr_alloc("lookup");

	if (e) {
		nftnl_expr_set_u32(e, NFTNL_EXPR_LOOKUP_SREG, NFT_REG_1);
		nftnl_expr_set_str(e, NFTNL_EXPR_LOOKUP_SET, rs->sets[set_index].name);
		nftnl_expr_set_u32(e, NFTNL_EXPR_LOOKUP_SET_ID, netlink_set_id(set_index));
		/* Explicit 0: the kernel reports the flags back, and the readback
		 * compares what it reports with what we sent. */
		nftnl_expr_set_u32(e, NFTNL_EXPR_LOOKUP_FLAGS, 0);
	}
	return e;
}

/* "ip saddr/daddr <prefix>" exactly as nft encodes it: meta nfproto ipv4,
 * then a byte-aligned prefix loads only its bytes, any other length loads
 * the whole address and masks it. */
static int match_ip_prefix(struct nftnl_rule *r, uint32_t offset, struct nf_prefix p)
{
	uint32_t addr = htonl(p.addr);
	uint32_t mask = htonl(p.len ? UINT32_MAX << (32 - p.len) : 0);
	uint32_t zero = 0;

	if (match_u8(r, NFT_META_NFPROTO, NFPROTO_IPV4))
		return -1;
	if (p.len % 8 == 0 && p.len > 0)
		return put(r, payload(NFT_PAYLOAD_NETWORK_HEADER, offset, p.len / 8)) ||
		       put(r, cmp(NFT_CMP_EQ, &addr, p.len / 8));
	return put(r, payload(NFT_PAYLOAD_NETWORK_HEADER, offset, 4)) ||
	       put(r, bitwise(&mask, &zero, 4)) || put(r, cmp(NFT_CMP_EQ, &addr, 4));
}

/* The index of an interface named in the ruleset.  The last answer is
 * kept: the managed ruleset names "lo" twice, and each if_nametoindex costs
 * a socket, an ioctl and a close.  An index cannot change under the same
 * name while a start renders (only a privileged rename or delete could). */
static uint32_t interface_index(const char *name)
{
	static char last_name[IF_NAMESIZE];
	static uint32_t last_index;

	if (last_index == 0 || strncmp(name, last_name, sizeof(last_name)) != 0) {
		last_index = if_nametoindex(name);
		snprintf(last_name, sizeof(last_name), "%s", name);
	}
	return last_index;
}

static int match_ifindex(struct nftnl_rule *r, uint32_t key, const char *name)
{
	uint32_t index = interface_index(name);

	return index == 0 || put(r, meta(key)) || put(r, cmp(NFT_CMP_EQ, &index, 4)) ? -1 : 0;
}

static int render_match(struct nftnl_rule *r, const struct nf_ruleset *rs, const struct nf_match *m)
{
	uint32_t zero = 0, u32;
	uint16_t port;

	switch (m->kind) {
	case MATCH_IIF:
		return match_ifindex(r, NFT_META_IIF, m->u.ifname);
	case MATCH_OIF:
		return match_ifindex(r, NFT_META_OIF, m->u.ifname);
	case MATCH_L4PROTO:
		return match_u8(r, NFT_META_L4PROTO, m->u.l4proto);
	case MATCH_CT_STATE:
		u32 = m->u.ct_state_mask;  /* ct state is a host-order bitmask */
		return put(r, ct(NFT_CT_STATE, false)) || put(r, bitwise(&u32, &zero, 4)) ||
		       put(r, cmp(NFT_CMP_NEQ, &zero, 4));
	case MATCH_IP_SADDR:
		return match_ip_prefix(r, 12, m->u.prefix);
	case MATCH_IP_DADDR:
		return match_ip_prefix(r, 16, m->u.prefix);
	case MATCH_IP_DADDR_SET:
		return match_u8(r, NFT_META_NFPROTO, NFPROTO_IPV4) ||
		       put(r, payload(NFT_PAYLOAD_NETWORK_HEADER, 16, 4)) || put(r, lookup(rs, m->u.set_index));
	case MATCH_DADDR_TCP_DPORT_SET:
		/* as nft: the address in register 1, the port in the next
		 * 32-bit register, one lookup of the 8-byte concatenation */
		return match_u8(r, NFT_META_NFPROTO, NFPROTO_IPV4) ||
		       match_u8(r, NFT_META_L4PROTO, IPPROTO_TCP) ||
		       put(r, payload(NFT_PAYLOAD_NETWORK_HEADER, 16, 4)) ||
		       put(r, payload_to(NFT_PAYLOAD_TRANSPORT_HEADER, 2, 2, NFT_REG32_01)) ||
		       put(r, lookup(rs, m->u.set_index));
	case MATCH_DPORT:
		port = htons(m->u.dport.port);
		return match_u8(r, NFT_META_L4PROTO, m->u.dport.l4proto) ||
		       put(r, payload(NFT_PAYLOAD_TRANSPORT_HEADER, 2, 2)) ||
		       put(r, cmp(NFT_CMP_EQ, &port, 2));
	case MATCH_CT_ORIG_DADDR:
		if (m->u.prefix.len != 32)
			return -1;  /* only whole addresses (resolvers) are used */
		u32 = htonl(m->u.prefix.addr);
		return put(r, ct(NFT_CT_DST_IP, true)) || put(r, cmp(NFT_CMP_EQ, &u32, 4));
	case MATCH_CT_ORIG_DPORT:
		port = htons(m->u.port);
		return put(r, ct(NFT_CT_PROTO_DST, true)) || put(r, cmp(NFT_CMP_EQ, &port, 2));
	case MATCH_SKUID:
	case MATCH_SKUID_NOT:
		u32 = m->u.uid;  /* meta skuid is a host-order u32 */
		return put(r, meta(NFT_META_SKUID)) ||
		       put(r, cmp(m->kind == MATCH_SKUID ? NFT_CMP_EQ : NFT_CMP_NEQ, &u32, 4));
	}
	return -1;
}

/* "limit rate R/second burst B packets log group G snaplen S", with every
 * attribute the kernel reports back (the readback compares them). */
static int render_log(struct nftnl_rule *r)
{
	struct nftnl_expr *l = nftnl_expr_alloc("limit"), *g;

	if (!l)
		return -1;
	nftnl_expr_set_u64(l, NFTNL_EXPR_LIMIT_RATE, NF_LOG_RATE);
	nftnl_expr_set_u64(l, NFTNL_EXPR_LIMIT_UNIT, 1);  /* per second */
	nftnl_expr_set_u32(l, NFTNL_EXPR_LIMIT_BURST, NF_LOG_BURST);
	nftnl_expr_set_u32(l, NFTNL_EXPR_LIMIT_TYPE, NFT_LIMIT_PKTS);
	nftnl_expr_set_u32(l, NFTNL_EXPR_LIMIT_FLAGS, 0);
	nftnl_rule_add_expr(r, l);
	g = nftnl_expr_alloc("log");
	if (!g)
		return -1;
	nftnl_expr_set_u16(g, NFTNL_EXPR_LOG_GROUP, NF_LOG_GROUP);
	nftnl_expr_set_u32(g, NFTNL_EXPR_LOG_SNAPLEN, NF_LOG_SNAPLEN);
	nftnl_expr_set_u16(g, NFTNL_EXPR_LOG_QTHRESHOLD, 0);
	return put(r, g);
}

static int render_verdict(struct nftnl_rule *r, enum nf_verdict v)
{
	struct nftnl_expr *e;

	if (v == NF_VERDICT_LOG)
		return render_log(r);

	if (v == NF_VERDICT_REJECT_ADMIN) {
		e = nftnl_expr_alloc("reject");
		if (!e)
			return -1;
		nftnl_expr_set_u32(e, NFTNL_EXPR_REJECT_TYPE, NFT_REJECT_ICMPX_UNREACH);
		nftnl_expr_set_u8(e, NFTNL_EXPR_REJECT_CODE, NFT_REJECT_ICMPX_ADMIN_PROHIBITED);
		return put(r, e);
	}
	if (v == NF_VERDICT_REJECT_RESET) {
		/* The kernel keeps no code for a TCP reset, so none is sent. */
		e = nftnl_expr_alloc("reject");
		if (!e)
			return -1;
		nftnl_expr_set_u32(e, NFTNL_EXPR_REJECT_TYPE, NFT_REJECT_TCP_RST);
		return put(r, e);
	}
	e = nftnl_expr_alloc("immediate");
	if (!e)
		return -1;
	nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_DREG, NFT_REG_VERDICT);
	nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_VERDICT, v == NF_VERDICT_ACCEPT ? NF_ACCEPT : NF_DROP);
	return put(r, e);
}

struct nftnl_table *netlink_table(const struct nf_ruleset *rs)
{
	struct nftnl_table *t = nftnl_table_alloc();

	if (t) {
		nftnl_table_set_u32(t, NFTNL_TABLE_FAMILY, NFPROTO_INET);
		nftnl_table_set_str(t, NFTNL_TABLE_NAME, rs->table);
		/* No NFT_TABLE_F_OWNER: an owned table vanishes with our socket. */
		nftnl_table_set_u32(t, NFTNL_TABLE_FLAGS, 0);
	}
	return t;
}

static uint32_t hooknum(enum nf_hook h)
{
	return h == NF_HOOK_INPUT ? NF_INET_LOCAL_IN :
	       h == NF_HOOK_FORWARD ? NF_INET_FORWARD : NF_INET_LOCAL_OUT;
}

struct nftnl_chain *netlink_chain(const struct nf_ruleset *rs, size_t i)
{
	const struct nf_chain *c = &rs->chains[i];
	struct nftnl_chain *ch = nftnl_chain_alloc();

	if (!ch)
		return NULL;
	nftnl_chain_set_u32(ch, NFTNL_CHAIN_FAMILY, NFPROTO_INET);
	nftnl_chain_set_str(ch, NFTNL_CHAIN_TABLE, rs->table);
	nftnl_chain_set_str(ch, NFTNL_CHAIN_NAME, c->name);
	nftnl_chain_set_str(ch, NFTNL_CHAIN_TYPE, "filter");
	nftnl_chain_set_u32(ch, NFTNL_CHAIN_HOOKNUM, hooknum(c->hook));
	nftnl_chain_set_s32(ch, NFTNL_CHAIN_PRIO, c->priority);
	nftnl_chain_set_u32(ch, NFTNL_CHAIN_POLICY, c->policy == NF_VERDICT_ACCEPT ? NF_ACCEPT : NF_DROP);
	return ch;
}

static int add_elem(struct nftnl_set *s, uint32_t key_host, bool end)
{
	struct nftnl_set_elem *e = nftnl_set_elem_alloc();
	uint32_t key = htonl(key_host);

	if (!e)
		return -1;
	nftnl_set_elem_set(e, NFTNL_SET_ELEM_KEY, &key, sizeof(key));
	if (end)
		nftnl_set_elem_set_u32(e, NFTNL_SET_ELEM_FLAGS, NFT_SET_ELEM_INTERVAL_END);
	nftnl_set_elem_add(s, e);
	return 0;
}

/* The set, with its elements when elems is true (the batch writes them
 * itself: tens of thousands of libnftnl objects cost more than the kernel's
 * own work on them). */
static struct nftnl_set *set_object(const struct nf_ruleset *rs, size_t i, uint32_t set_id, bool elems)
{
	const struct nf_set *m = &rs->sets[i];
	struct nftnl_set *s = nftnl_set_alloc();
	struct nftnl_udata_buf *ud = nftnl_udata_buf_alloc(64);
	int rc = 0;

	if (!s || !ud || !nftnl_udata_put_u32(ud, NFTNL_UDATA_SET_KEYBYTEORDER, NFT_BYTEORDER_BIG_ENDIAN))
		goto fail;
	nftnl_set_set_u32(s, NFTNL_SET_FAMILY, NFPROTO_INET);
	nftnl_set_set_str(s, NFTNL_SET_TABLE, rs->table);
	nftnl_set_set_str(s, NFTNL_SET_NAME, m->name);
	if (m->dynamic) {
		/* ipv4_addr . inet_service: two fields in 4-byte registers */
		nftnl_set_set_u32(s, NFTNL_SET_FLAGS, NFT_SET_TIMEOUT);
		nftnl_set_set_u32(s, NFTNL_SET_KEY_TYPE, NFT_TYPE_IPADDR << NFT_TYPE_BITS | NFT_TYPE_INET_SERVICE);
		nftnl_set_set_u32(s, NFTNL_SET_KEY_LEN, 8);
		nftnl_set_set_u64(s, NFTNL_SET_TIMEOUT, (uint64_t)m->timeout_s * 1000u);
		nftnl_set_set_u32(s, NFTNL_SET_DESC_SIZE, m->size);
	} else {
		nftnl_set_set_u32(s, NFTNL_SET_FLAGS, NFT_SET_INTERVAL);
		nftnl_set_set_u32(s, NFTNL_SET_KEY_TYPE, NFT_TYPE_IPADDR);
		nftnl_set_set_u32(s, NFTNL_SET_KEY_LEN, 4);
	}
	nftnl_set_set_u32(s, NFTNL_SET_ID, set_id);
	nftnl_set_set_data(s, NFTNL_SET_USERDATA, nftnl_udata_buf_data(ud), nftnl_udata_buf_len(ud));
	nftnl_udata_buf_free(ud);
	ud = NULL;

	/* Half-open intervals, keys big-endian: a start without flags, an end of
	 * last + 1 flagged INTERVAL_END (none when the range reaches the top of
	 * the address space), and a leading 0.0.0.0 end when the first range does
	 * not start at 0, exactly as nft sends them. */
	if (elems && m->n_elems && m->elems[0].first != 0)
		rc |= add_elem(s, 0, true);
	for (size_t k = 0; elems && k < m->n_elems; k++) {
		rc |= add_elem(s, m->elems[k].first, false);
		if (m->elems[k].last != UINT32_MAX)
			rc |= add_elem(s, m->elems[k].last + 1, true);
	}
	if (rc)
		goto fail;
	return s;
fail:
	nftnl_udata_buf_free(ud);
	if (s)
		nftnl_set_free(s);
	return NULL;
}

struct nftnl_set *netlink_set(const struct nf_ruleset *rs, size_t i, uint32_t set_id)
{
	return set_object(rs, i, set_id, true);
}

struct nftnl_rule *netlink_rule(const struct nf_ruleset *rs, size_t chain, size_t i)
{
	const struct nf_rule *m = &rs->chains[chain].rules[i];
	struct nftnl_rule *r = nftnl_rule_alloc();

	if (!r)
		return NULL;
	nftnl_rule_set_u32(r, NFTNL_RULE_FAMILY, NFPROTO_INET);
	nftnl_rule_set_str(r, NFTNL_RULE_TABLE, rs->table);
	nftnl_rule_set_str(r, NFTNL_RULE_CHAIN, rs->chains[chain].name);
	for (size_t k = 0; k < m->n_matches; k++)
		if (render_match(r, rs, &m->matches[k]))
			goto fail;
	if (render_verdict(r, m->verdict))
		goto fail;
	return r;
fail:
	nftnl_rule_free(r);
	return NULL;
}

struct expr_text_ctx {
	char *buf;
	size_t len, used;
	bool overflow;
};

static int expr_text_cb(struct nftnl_expr *e, void *data)
{
	struct expr_text_ctx *c = data;
	char one[512];
	int n;

	nftnl_expr_snprintf(one, sizeof(one), e, NFTNL_OUTPUT_DEFAULT, 0);
	/* "[ <name> <text>]" is exactly how nft --debug=netlink prints it. */
	n = snprintf(c->buf + c->used, c->len - c->used, "  [ %s %s]\n",
		     nftnl_expr_get_str(e, NFTNL_EXPR_NAME), one);
	if (n < 0 || (size_t)n >= c->len - c->used) {
		c->overflow = true;
		return -1;
	}
	c->used += (size_t)n;
	return 0;
}

int netlink_rule_exprs_text(const struct nftnl_rule *r, char *buf, size_t len)
{
	struct expr_text_ctx c = { buf, len, 0, false };

	if (len == 0)
		return -1;
	buf[0] = '\0';
	if (nftnl_expr_foreach((struct nftnl_rule *)r, expr_text_cb, &c) < 0 || c.overflow)
		return -1;
	return (int)c.used;
}

/* The walk: the whole transaction, in the order nft sends it. */

static int add_table(struct nl_batch *b, const struct nf_ruleset *rs, uint16_t type, uint16_t flags)
{
	struct nftnl_table *t = netlink_table(rs);
	struct nlmsghdr *nlh;
	char what[NL_BATCH_DESC_MAX];

	if (!t)
		return -1;
	nlh = nl_batch_next(b, type, flags);
	nftnl_table_nlmsg_build_payload(nlh, t);
	nftnl_table_free(t);
	snprintf(what, sizeof(what), "%s table inet %s", type == NFT_MSG_DELTABLE ?
		 "the replacement of the old" : "the", rs->table);
	return nl_batch_add(b, nlh, what);
}

/* Elements per NEWSETELEM message: well inside the 64 KiB an attribute
 * nest can hold, and inside a batch page's overrun. */
#define ELEMS_BYTES_MAX (32u * 1024u)

/* One element as nft sends it: the key big-endian, the end of a half-open
 * interval flagged INTERVAL_END. */
static void put_elem(struct nlmsghdr *nlh, uint32_t key_host, bool end)
{
	struct nlattr *e = mnl_attr_nest_start(nlh, NFTA_LIST_ELEM), *k;

	if (end)
		mnl_attr_put_u32(nlh, NFTA_SET_ELEM_FLAGS, htonl(NFT_SET_ELEM_INTERVAL_END));
	k = mnl_attr_nest_start(nlh, NFTA_SET_ELEM_KEY);
	mnl_attr_put_u32(nlh, NFTA_DATA_VALUE, htonl(key_host));
	mnl_attr_nest_end(nlh, k);
	mnl_attr_nest_end(nlh, e);
}

/* Key k of the 2 * n_elems + 1 candidates, in ascending order: a leading
 * 0.0.0.0 end, then the start and the end (last + 1) of each range.  False
 * for the two that may not exist: the leading end when the first range
 * starts at 0, the end of a range that reaches 255.255.255.255. */
static bool candidate(const struct nf_set *m, size_t k, uint32_t *key, bool *end)
{
	if (k == 0) {
		*key = 0;
		*end = true;
		return m->elems[0].first != 0;
	}
	*end = k % 2 == 0;
	if (!*end) {
		*key = m->elems[k / 2].first;
		return true;
	}
	*key = m->elems[k / 2 - 1].last + 1;
	return m->elems[k / 2 - 1].last != UINT32_MAX;
}

/* A set and its elements; elements are split over as many messages as the
 * attribute limit needs, all inside the same transaction.  The keys are the
 * ones netlink_set() describes, written straight into the batch. */
static int add_set(struct nl_batch *b, const struct nf_ruleset *rs, size_t i)
{
	const struct nf_set *m = &rs->sets[i];
	struct nftnl_set *s = set_object(rs, i, netlink_set_id(i), false);
	struct nlmsghdr *nlh;
	char what[NL_BATCH_DESC_MAX];
	size_t n = 2 * m->n_elems + 1, k = 0;
	uint32_t key;
	bool end;
	int rc;

	if (!s)
		return -1;
	nlh = nl_batch_next(b, NFT_MSG_NEWSET, NLM_F_CREATE);
	nftnl_set_nlmsg_build_payload(nlh, s);
	nftnl_set_free(s);
	snprintf(what, sizeof(what), "set %s", m->name);
	rc = nl_batch_add(b, nlh, what);
	snprintf(what, sizeof(what), "the elements of set %s", m->name);
	if (m->n_elems == 0)
		return rc;
	for (;;) {
		struct nlattr *list;

		while (k < n && !candidate(m, k, &key, &end))
			k++;
		if (rc || k == n)
			break;
		nlh = nl_batch_next(b, NFT_MSG_NEWSETELEM, NLM_F_CREATE);
		mnl_attr_put_strz(nlh, NFTA_SET_ELEM_LIST_SET, m->name);
		mnl_attr_put_u32(nlh, NFTA_SET_ELEM_LIST_SET_ID, htonl(netlink_set_id(i)));
		mnl_attr_put_strz(nlh, NFTA_SET_ELEM_LIST_TABLE, rs->table);
		list = mnl_attr_nest_start(nlh, NFTA_SET_ELEM_LIST_ELEMENTS);
		for (; k < n && nlh->nlmsg_len < ELEMS_BYTES_MAX; k++)
			if (candidate(m, k, &key, &end))
				put_elem(nlh, key, end);
		mnl_attr_nest_end(nlh, list);
		rc = nl_batch_add(b, nlh, what);
	}
	return rc ? -1 : 0;
}

static int add_chain(struct nl_batch *b, const struct nf_ruleset *rs, size_t i)
{
	struct nftnl_chain *c = netlink_chain(rs, i);
	struct nlmsghdr *nlh;
	char what[NL_BATCH_DESC_MAX];

	if (!c)
		return -1;
	nlh = nl_batch_next(b, NFT_MSG_NEWCHAIN, NLM_F_CREATE);
	nftnl_chain_nlmsg_build_payload(nlh, c);
	nftnl_chain_free(c);
	snprintf(what, sizeof(what), "chain %s", rs->chains[i].name);
	return nl_batch_add(b, nlh, what);
}

static int add_rule(struct nl_batch *b, const struct nf_ruleset *rs, size_t c, size_t i)
{
	struct nftnl_rule *r = netlink_rule(rs, c, i);
	struct nlmsghdr *nlh;
	char what[NL_BATCH_DESC_MAX];

	if (!r)
		return -1;
	nlh = nl_batch_next(b, NFT_MSG_NEWRULE, NLM_F_CREATE | NLM_F_APPEND);
	nftnl_rule_nlmsg_build_payload(nlh, r);
	nftnl_rule_free(r);
	snprintf(what, sizeof(what), "rule %zu of chain %s (%s)", i + 1, rs->chains[c].name,
		 rs->chains[c].rules[i].comment);
	if (nl_batch_add(b, nlh, what))
		return -1;
	if (rs->chains[c].rules[i].verdict == NF_VERDICT_LOG)
		nl_batch_mark_log(b);
	return 0;
}

struct nl_batch *render_netlink(const struct nf_ruleset *rs, enum nl_table_mode mode, uint32_t genid,
				uint32_t first_seq, struct cs_error *err)
{
	struct nl_batch *b = nl_batch_new(first_seq);
	int rc;

	rc = !b || nl_batch_begin(b, genid);
	if (!rc && mode == NL_TABLE_CREATE)
		rc = add_table(b, rs, NFT_MSG_NEWTABLE, NLM_F_CREATE | NLM_F_EXCL);
	else if (!rc)  /* create, delete, create: replaces the earlier copy */
		rc = add_table(b, rs, NFT_MSG_NEWTABLE, NLM_F_CREATE) ||
		     add_table(b, rs, NFT_MSG_DELTABLE, 0) ||
		     add_table(b, rs, NFT_MSG_NEWTABLE, NLM_F_CREATE);
	for (size_t i = 0; i < rs->n_sets && !rc; i++)
		rc = add_set(b, rs, i);
	for (size_t i = 0; i < rs->n_chains && !rc; i++)
		rc = add_chain(b, rs, i);
	for (size_t c = 0; c < rs->n_chains && !rc; c++)
		for (size_t i = 0; i < rs->chains[c].n_rules && !rc; i++)
			rc = add_rule(b, rs, c, i);
	if (!rc && nl_batch_end(b) == 0)
		return b;
	nl_batch_free(b);
	cs_fail(err, CS_EXIT_OSERR, "could not build the netlink batch (out of memory, or an interface named in the ruleset does not exist)");
	return NULL;
}
