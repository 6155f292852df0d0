#include "netfilter/readback.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libnftnl/chain.h>
#include <libnftnl/common.h>
#include <libnftnl/rule.h>
#include <libnftnl/set.h>
#include <libnftnl/table.h>

#include "base/grow.h"
#include "netfilter/render_netlink.h"

#define RULE_TEXT_MAX 4096

struct readback {
	const struct nf_ruleset *rs;
	struct cs_error *err;
	int failed;
	/* chains */
	size_t n_chains;
	/* rules, per chain, in order */
	size_t *rules_seen;
	/* set elements of the set being read: key << 1 | (start ? 1 : 0), so
	 * sorting puts an end key before a start key of the same value */
	uint64_t *keys;
	size_t n_keys, cap_keys;
	size_t n_sets;
	uint32_t table_flags;
	bool table_seen;
};

static int mismatch(struct readback *rb, const char *fmt, const char *a, const char *b)
{
	if (!rb->failed)
		cs_fail(rb->err, CS_EXIT_OSERR, "the firewall read back from the kernel differs from the plan: %s %s %s; no command is started",
			fmt, a ? a : "", b ? b : "");
	rb->failed = 1;
	return MNL_CB_ERROR;
}

/* One request, then read the (dump) replies until DONE or an error. */
static int talk(struct mnl_socket *nl, struct nlmsghdr *req, mnl_cb_t cb, struct readback *rb,
		const char *what)
{
	static char buf[64 * 1024];
	uint32_t seq = req->nlmsg_seq, portid = mnl_socket_get_portid(nl);
	int ret;

	if (mnl_socket_sendto(nl, req, req->nlmsg_len) < 0)
		return cs_fail(rb->err, CS_EXIT_OSERR, "cannot read back %s from the kernel (%s)", what, strerror(errno));
	do {
		ret = (int)mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (ret <= 0)
			break;
		ret = mnl_cb_run(buf, (size_t)ret, seq, portid, cb, rb);
	} while (ret > MNL_CB_STOP);
	if (rb->failed)
		return -1;
	if (ret < 0)
		return cs_fail(rb->err, CS_EXIT_OSERR, "cannot read back %s from the kernel (%s); no command is started", what, strerror(errno));
	return 0;
}

static int table_cb(const struct nlmsghdr *nlh, void *data)
{
	struct readback *rb = data;
	struct nftnl_table *t = nftnl_table_alloc();

	if (!t || nftnl_table_nlmsg_parse(nlh, t) < 0) {
		nftnl_table_free(t);
		return mismatch(rb, "unreadable table", NULL, NULL);
	}
	rb->table_seen = true;
	rb->table_flags = nftnl_table_get_u32(t, NFTNL_TABLE_FLAGS);
	nftnl_table_free(t);
	return MNL_CB_OK;
}

static bool same_table(struct readback *rb, const char *table, uint32_t family)
{
	return family == NFPROTO_INET && table && strcmp(table, rb->rs->table) == 0;
}

static int chain_cb(const struct nlmsghdr *nlh, void *data)
{
	struct readback *rb = data;
	struct nftnl_chain *c = nftnl_chain_alloc();
	const char *name;
	int rc = MNL_CB_OK;
	bool found = false;

	if (!c || nftnl_chain_nlmsg_parse(nlh, c) < 0) {
		nftnl_chain_free(c);
		return mismatch(rb, "unreadable chain", NULL, NULL);
	}
	if (!same_table(rb, nftnl_chain_get_str(c, NFTNL_CHAIN_TABLE), nftnl_chain_get_u32(c, NFTNL_CHAIN_FAMILY)))
		goto out;
	name = nftnl_chain_get_str(c, NFTNL_CHAIN_NAME);
	rb->n_chains++;
	for (size_t i = 0; i < rb->rs->n_chains; i++) {
		struct nftnl_chain *want = netlink_chain(rb->rs, i);

		if (!want) {
			rc = mismatch(rb, "out of memory", NULL, NULL);
			break;
		}
		if (strcmp(name, rb->rs->chains[i].name) == 0) {
			found = true;
			if (nftnl_chain_get_u32(c, NFTNL_CHAIN_HOOKNUM) != nftnl_chain_get_u32(want, NFTNL_CHAIN_HOOKNUM) ||
			    nftnl_chain_get_s32(c, NFTNL_CHAIN_PRIO) != nftnl_chain_get_s32(want, NFTNL_CHAIN_PRIO) ||
			    nftnl_chain_get_u32(c, NFTNL_CHAIN_POLICY) != nftnl_chain_get_u32(want, NFTNL_CHAIN_POLICY) ||
			    !nftnl_chain_get_str(c, NFTNL_CHAIN_TYPE) ||
			    strcmp(nftnl_chain_get_str(c, NFTNL_CHAIN_TYPE), "filter") != 0)
				rc = mismatch(rb, "chain", name, "has another hook, priority, policy or type");
		}
		nftnl_chain_free(want);
	}
	if (!found && rc == MNL_CB_OK)
		rc = mismatch(rb, "unexpected chain", name, NULL);
out:
	nftnl_chain_free(c);
	return rc;
}

static int rule_cb(const struct nlmsghdr *nlh, void *data)
{
	struct readback *rb = data;
	struct nftnl_rule *r = nftnl_rule_alloc(), *want = NULL;
	char got_text[RULE_TEXT_MAX], want_text[RULE_TEXT_MAX];
	const char *chain;
	int rc = MNL_CB_OK;
	size_t ci;

	if (!r || nftnl_rule_nlmsg_parse(nlh, r) < 0) {
		nftnl_rule_free(r);
		return mismatch(rb, "unreadable rule", NULL, NULL);
	}
	if (!same_table(rb, nftnl_rule_get_str(r, NFTNL_RULE_TABLE), nftnl_rule_get_u32(r, NFTNL_RULE_FAMILY)))
		goto out;
	chain = nftnl_rule_get_str(r, NFTNL_RULE_CHAIN);
	for (ci = 0; ci < rb->rs->n_chains; ci++)
		if (strcmp(chain, rb->rs->chains[ci].name) == 0)
			break;
	if (ci == rb->rs->n_chains || rb->rules_seen[ci] >= rb->rs->chains[ci].n_rules) {
		rc = mismatch(rb, "an extra rule in chain", chain, NULL);
		goto out;
	}
	/* Rules come back in chain order: compare the i-th with the i-th. */
	want = netlink_rule(rb->rs, ci, rb->rules_seen[ci]++);
	if (!want || netlink_rule_exprs_text(r, got_text, sizeof(got_text)) < 0 ||
	    netlink_rule_exprs_text(want, want_text, sizeof(want_text)) < 0)
		rc = mismatch(rb, "a rule could not be rendered in chain", chain, NULL);
	else if (strcmp(got_text, want_text) != 0)
		rc = mismatch(rb, "a rule differs in chain", chain, rb->rs->chains[ci].rules[rb->rules_seen[ci] - 1].comment);
out:
	if (want)
		nftnl_rule_free(want);
	nftnl_rule_free(r);
	return rc;
}

static int set_cb(const struct nlmsghdr *nlh, void *data)
{
	struct readback *rb = data;
	struct nftnl_set *s = nftnl_set_alloc();
	int rc = MNL_CB_OK;
	bool known = false;

	if (!s || nftnl_set_nlmsg_parse(nlh, s) < 0) {
		nftnl_set_free(s);
		return mismatch(rb, "unreadable set", NULL, NULL);
	}
	if (same_table(rb, nftnl_set_get_str(s, NFTNL_SET_TABLE), nftnl_set_get_u32(s, NFTNL_SET_FAMILY))) {
		rb->n_sets++;
		for (size_t i = 0; i < rb->rs->n_sets; i++)
			known = known || strcmp(rb->rs->sets[i].name, nftnl_set_get_str(s, NFTNL_SET_NAME)) == 0;
		if (!known || nftnl_set_get_u32(s, NFTNL_SET_FLAGS) != NFT_SET_INTERVAL ||
		    nftnl_set_get_u32(s, NFTNL_SET_KEY_LEN) != 4)
			rc = mismatch(rb, "unexpected or altered set", nftnl_set_get_str(s, NFTNL_SET_NAME), NULL);
	}
	nftnl_set_free(s);
	return rc;
}

static int elem_cb(struct nftnl_set_elem *e, void *data)
{
	struct readback *rb = data;
	uint32_t len = 0, key;
	const void *k = nftnl_set_elem_get(e, NFTNL_SET_ELEM_KEY, &len);
	bool end;

	if (!k || len != 4)
		return -1;
	if (grow_array((void **)&rb->keys, &rb->cap_keys, rb->n_keys, sizeof(*rb->keys), 256))
		return -1;
	memcpy(&key, k, 4);
	end = nftnl_set_elem_is_set(e, NFTNL_SET_ELEM_FLAGS) &&
	      (nftnl_set_elem_get_u32(e, NFTNL_SET_ELEM_FLAGS) & NFT_SET_ELEM_INTERVAL_END);
	rb->keys[rb->n_keys++] = (uint64_t)ntohl(key) << 1 | (end ? 0 : 1);
	return 0;
}

static int elems_cb(const struct nlmsghdr *nlh, void *data)
{
	struct readback *rb = data;
	struct nftnl_set *s = nftnl_set_alloc();
	int rc;

	if (!s || nftnl_set_elems_nlmsg_parse(nlh, s) < 0) {
		nftnl_set_free(s);
		return mismatch(rb, "unreadable set elements", NULL, NULL);
	}
	rc = nftnl_set_elem_foreach(s, elem_cb, rb);
	nftnl_set_free(s);
	return rc < 0 ? mismatch(rb, "unreadable set element", NULL, NULL) : MNL_CB_OK;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static bool key_is_end(uint64_t packed)
{
	return (packed & 1) == 0;
}

static uint32_t key_value(uint64_t packed)
{
	return (uint32_t)(packed >> 1);
}

/* Half-open kernel intervals back to the model's inclusive ranges. */
static int compare_elements(struct readback *rb, const struct nf_set *set)
{
	size_t out = 0;

	qsort(rb->keys, rb->n_keys, sizeof(*rb->keys), cmp_u64);
	for (size_t i = 0; i < rb->n_keys; i++) {
		struct ipv4_range r;

		if (key_is_end(rb->keys[i]))
			continue;  /* ends are consumed with their starts; 0.0.0.0 end leads */
		r.first = key_value(rb->keys[i]);
		if (i + 1 < rb->n_keys && key_is_end(rb->keys[i + 1]))
			r.last = key_value(rb->keys[++i]) - 1;
		else if (i + 1 == rb->n_keys)
			r.last = UINT32_MAX;
		else
			return mismatch(rb, "set", set->name, "has an interval without an end");
		if (out >= set->n_elems || set->elems[out].first != r.first || set->elems[out].last != r.last)
			return mismatch(rb, "set", set->name, "has other elements than planned");
		out++;
	}
	if (out != set->n_elems)
		return mismatch(rb, "set", set->name, "is missing elements");
	return 0;
}

static struct nlmsghdr *request(char *buf, uint16_t type, uint16_t flags)
{
	return nftnl_nlmsg_build_hdr(buf, type, NFPROTO_INET, flags | NLM_F_ACK, (uint32_t)time(NULL));
}

int readback_verify(struct mnl_socket *nl, const struct nf_ruleset *rs, struct cs_error *err)
{
	struct readback rb = { .rs = rs, .err = err };
	char buf[8192];
	struct nlmsghdr *nlh;
	struct nftnl_table *t = NULL;
	struct nftnl_set *s = NULL;
	int rc = -1;

	rb.rules_seen = calloc(rs->n_chains + 1, sizeof(size_t));
	t = nftnl_table_alloc();
	if (!rb.rules_seen || !t) {
		cs_fail(err, CS_EXIT_OSERR, "out of memory reading the firewall back");
		goto out;
	}
	nftnl_table_set_str(t, NFTNL_TABLE_NAME, rs->table);
	nlh = request(buf, NFT_MSG_GETTABLE, 0);
	nftnl_table_nlmsg_build_payload(nlh, t);
	if (talk(nl, nlh, table_cb, &rb, "the table"))
		goto out;
	/* Not dormant (a dormant table filters nothing), not owned by our socket. */
	if (!rb.table_seen || rb.table_flags != 0) {
		mismatch(&rb, "table", rs->table, "is missing, dormant or owned");
		goto out;
	}
	if (talk(nl, request(buf, NFT_MSG_GETCHAIN, NLM_F_DUMP), chain_cb, &rb, "the chains") ||
	    talk(nl, request(buf, NFT_MSG_GETRULE, NLM_F_DUMP), rule_cb, &rb, "the rules") ||
	    talk(nl, request(buf, NFT_MSG_GETSET, NLM_F_DUMP), set_cb, &rb, "the sets"))
		goto out;
	if (rb.n_chains != rs->n_chains || rb.n_sets != rs->n_sets) {
		mismatch(&rb, "chain or set count in table", rs->table, NULL);
		goto out;
	}
	for (size_t i = 0; i < rs->n_chains; i++)
		if (rb.rules_seen[i] != rs->chains[i].n_rules) {
			mismatch(&rb, "rule count of chain", rs->chains[i].name, NULL);
			goto out;
		}
	for (size_t i = 0; i < rs->n_sets; i++) {
		s = nftnl_set_alloc();
		if (!s)
			goto out;
		nftnl_set_set_str(s, NFTNL_SET_TABLE, rs->table);
		nftnl_set_set_str(s, NFTNL_SET_NAME, rs->sets[i].name);
		nftnl_set_set_u32(s, NFTNL_SET_FAMILY, NFPROTO_INET);
		nlh = request(buf, NFT_MSG_GETSETELEM, NLM_F_DUMP);
		nftnl_set_elems_nlmsg_build_payload(nlh, s);
		nftnl_set_free(s);
		s = NULL;
		rb.n_keys = 0;
		if (talk(nl, nlh, elems_cb, &rb, "the set elements") || compare_elements(&rb, &rs->sets[i]))
			goto out;
	}
	rc = 0;
out:
	if (t)
		nftnl_table_free(t);
	free(rb.rules_seen);
	free(rb.keys);
	return rc;
}
