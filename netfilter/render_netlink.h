/* The third renderer: the ruleset model as one netlink transaction.
 *
 * render_netlink() walks the model itself, as the nft text and JSON
 * renderers do, and returns the finished batch for the transport
 * (nl_transport.h) to send.  It emits the same expressions, in the same
 * order and with the same dependencies (meta nfproto before ip fields, meta
 * l4proto before ports), as nft emits for the text renderer's output, so a
 * kernel programmed from this batch lists exactly like one loaded from the
 * dry-run dump. */
#ifndef CLI_SANDBOX_RENDER_NETLINK_H
#define CLI_SANDBOX_RENDER_NETLINK_H

#include <libnftnl/chain.h>
#include <libnftnl/rule.h>
#include <libnftnl/set.h>
#include <libnftnl/table.h>

#include "base/status.h"
#include "netfilter/model.h"
#include "netfilter/nl_batch.h"

/* How the batch brings the table in. */
enum nl_table_mode {
	/* The table does not exist: create it exclusively (a copy that appeared
	 * meanwhile makes the kernel refuse the batch with EEXIST).  Nothing is
	 * deleted, so the commit leaves no destruction work behind, and closing
	 * the socket does not wait for an RCU grace period. */
	NL_TABLE_CREATE,
	/* The table exists: create, delete and create it again in the same
	 * transaction, so the old copy is replaced atomically. */
	NL_TABLE_REPLACE,
};

/* BEGIN (carrying genid when it is not 0: the kernel refuses the batch if
 * the ruleset moved past that generation), the table as mode says, the sets
 * with their elements, the chains, the rules, END; sequence numbers start at
 * first_seq.  NULL with err (71) when memory runs out or the model holds
 * something netlink cannot express. */
struct nl_batch *render_netlink(const struct nf_ruleset *rs, enum nl_table_mode mode, uint32_t genid,
				uint32_t first_seq, struct cs_error *err);

/* The objects of the batch, one at a time: the readback compares what the
 * kernel reports with these, and the golden tests print them.  Each returns
 * a new object, or NULL when memory runs out or the model holds something
 * this renderer cannot express (e.g. an unknown interface). */
struct nftnl_table *netlink_table(const struct nf_ruleset *rs);
struct nftnl_chain *netlink_chain(const struct nf_ruleset *rs, size_t chain);
/* The set with its elements; set_id is the batch-local id lookups refer to. */
struct nftnl_set *netlink_set(const struct nf_ruleset *rs, size_t set, uint32_t set_id);
struct nftnl_rule *netlink_rule(const struct nf_ruleset *rs, size_t chain, size_t rule);

/* The batch-local id of set i (ids start at 1; 0 means "none"). */
static inline uint32_t netlink_set_id(size_t set_index)
{
	return (uint32_t)set_index + 1;
}

/* Writes the rule's expressions, one "[ ... ]" per line as nft --debug=netlink
 * prints them, into buf; returns the length or -1.  Used to compare what was
 * sent with what the kernel reports back, and by the golden tests. */
int netlink_rule_exprs_text(const struct nftnl_rule *r, char *buf, size_t len);

#endif
