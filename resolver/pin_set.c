#include "resolver/pin_set.h"

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <string.h>

#include "netfilter/nl_batch.h"
#include "netfilter/nl_transport.h"

/* The key of `ipv4_addr . inet_service`: each field in a 4-byte register,
 * big-endian, the port's two bytes followed by two of padding. */
static void put_element(struct nlmsghdr *nlh, uint32_t addr, uint16_t port, uint32_t timeout_ms)
{
	uint8_t key[8] = { 0 };
	uint32_t a = htonl(addr);
	uint16_t p = htons(port);
	struct nlattr *elem = mnl_attr_nest_start(nlh, NFTA_LIST_ELEM), *k;

	memcpy(key, &a, 4);
	memcpy(key + 4, &p, 2);
	k = mnl_attr_nest_start(nlh, NFTA_SET_ELEM_KEY);
	mnl_attr_put(nlh, NFTA_DATA_VALUE, sizeof(key), key);
	mnl_attr_nest_end(nlh, k);
	mnl_attr_put_u64(nlh, NFTA_SET_ELEM_TIMEOUT, htobe64(timeout_ms));
	mnl_attr_put_u64(nlh, NFTA_SET_ELEM_EXPIRATION, htobe64(timeout_ms));
	mnl_attr_nest_end(nlh, elem);
}

int pin_set_add(struct mnl_socket *nl, const struct pin_target *t, const uint32_t *addrs, size_t n_addrs,
		const uint16_t *ports, size_t n_ports, struct cs_error *err)
{
	static uint32_t seq = 1;
	struct nl_batch *b = nl_batch_new(seq);
	struct nl_refusal refused;
	struct nlmsghdr *nlh;
	struct nlattr *list;
	int rc;

	if (!b)
		return cs_fail(err, CS_EXIT_OSERR, "out of memory for the pinning batch");
	if (nl_batch_begin(b, 0) != 0)
		goto oom;
	nlh = nl_batch_next(b, NFNL_SUBSYS_NFTABLES << 8 | NFT_MSG_NEWSETELEM, NLM_F_CREATE);
	mnl_attr_put_strz(nlh, NFTA_SET_ELEM_LIST_TABLE, t->table);
	mnl_attr_put_strz(nlh, NFTA_SET_ELEM_LIST_SET, t->set);
	list = mnl_attr_nest_start(nlh, NFTA_SET_ELEM_LIST_ELEMENTS);
	for (size_t i = 0; i < n_addrs; i++)
		for (size_t k = 0; k < n_ports; k++)
			put_element(nlh, addrs[i], ports[k], t->timeout_ms);
	mnl_attr_nest_end(nlh, list);
	if (nl_batch_add(b, nlh, "the pinned addresses (NEWSETELEM)") != 0 || nl_batch_end(b) != 0)
		goto oom;
	seq = b->next_seq;
	rc = nl_send(nl, b, &refused, err);
	nl_batch_free(b);
	/* before the init's ruleset exists (a sidecar that started first) or
	 * after it was replaced without the set: say that, not "a module is
	 * missing" */
	if (rc != 0 && refused.errnum == ENOENT)
		cs_fail(err, CS_EXIT_OSERR, "there is no set inet %s %s yet: the init has not programmed the pinning firewall (CLI_SANDBOX_DNS=pinned)",
			t->table, t->set);
	return rc;
oom:
	nl_batch_free(b);
	return cs_fail(err, CS_EXIT_OSERR, "out of memory for the pinning batch");
}
