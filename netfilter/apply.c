#include "netfilter/apply.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "netfilter/nl_query.h"
#include "netfilter/conntrack_flush.h"
#include "netfilter/nl_transport.h"
#include "netfilter/readback.h"
#include "netfilter/render_netlink.h"

/* How the last batch sent failed: the kernel's refusal (errnum 0 when the
 * failure was something else: the send, a readback, the generation look),
 * and whether the message refused carries the block log's expressions. */
struct apply_refusal {
	struct nl_refusal kernel;
	bool log;
};

/* One attempt: the batch, sent, then read back; at most twice (below).
 * *why is the kernel's refusal of the batch that was sent last, when that
 * was the failure (errnum 0 otherwise). */
static int apply_seen(struct mnl_socket *nl, const struct nf_ruleset *rs, bool exists, uint32_t genid,
		      int *attempts, struct apply_refusal *why, struct cs_error *err)
{
	struct nl_query q;
	int rc = -1;

	*attempts = 0;
	why->kernel.errnum = 0;
	if (nl_query_init(&q, nl, err))
		return -1;
	/* At most twice: a table that appeared since we looked (EEXIST on the
	 * exclusive create) or any commit since we looked (ERESTART from the
	 * generation check) gets one more look and the matching batch. */
	for (;;) {
		struct nl_batch *b = render_netlink(rs, exists ? NL_TABLE_REPLACE : NL_TABLE_CREATE, genid,
						    (uint32_t)time(NULL), err);

		if (!b)
			break;
		++*attempts;
		if (nl_send(nl, b, &why->kernel, err) == 0) {
			why->kernel.errnum = 0;  /* a readback failure is no refusal */
			rc = readback_verify(nl, rs, b, err);
			nl_batch_free(b);
			break;
		}
		why->log = nl_batch_is_log(b, why->kernel.seq);
		nl_batch_free(b);
		if (*attempts > 1 || (why->kernel.errnum != EEXIST && why->kernel.errnum != ERESTART))
			break;  /* err says why; nothing was committed */
		if (nl_query_table_exists(&q, rs->table, &exists, &genid, err)) {
			why->kernel.errnum = 0;
			break;
		}
	}
	nl_query_fini(&q);
	return rc;
}

int firewall_apply_seen(struct mnl_socket *nl, const struct nf_ruleset *rs, bool exists, uint32_t genid,
			int *attempts, struct cs_error *err)
{
	struct apply_refusal why;

	return apply_seen(nl, rs, exists, genid, attempts, &why, err);
}

bool firewall_log_unsupported(int errnum, bool log_rule)
{
	/* A kernel without nft_limit or nft_log (or nfnetlink_log) answers
	 * the rule that uses them with ENOENT (no such expression type, or no
	 * logger for the group) or EOPNOTSUPP; nothing else is that. */
	return log_rule && (errnum == ENOENT || errnum == EOPNOTSUPP);
}

static int apply_once(struct mnl_socket *nl, const struct nf_ruleset *rs, struct apply_refusal *why,
		      struct cs_error *err)
{
	int attempts;

	/* Optimistic: a start normally meets a fresh network namespace, where
	 * the table does not exist yet, so the first batch only creates it
	 * (exclusively: NLM_F_EXCL), deletes nothing, and closing the socket
	 * pays no RCU grace period.  No generation check is needed for that:
	 * whatever else changed, the exclusive create either makes the table
	 * or is refused with EEXIST.  A restart meets the table: EEXIST, then
	 * one look (generation and table) and the replacing batch, checked
	 * against that generation.  Asking first would cost every fresh start
	 * two round trips to save a restart one refused batch. */
	return apply_seen(nl, rs, false, 0, &attempts, why, err);
}

/* The block log must never cost the start: a kernel without nft's log or
 * limit expression (or nfnetlink_log) refuses the whole batch at the first
 * log rule, so only then the same ruleset without its log rules
 * (ruleset_strip_log, in place: the caller's model is then what the kernel
 * holds) is tried once more.  Those rules decide nothing, so every verdict
 * is the same; only the logging is lost, and the warning says so.  Any
 * other failure of the first attempt (ENOBUFS or EIO on the batch or its
 * acknowledgements, the generation look, the readback) is the start's
 * error, as it was. */
static int apply_with_fallback(struct mnl_socket *nl, struct nf_ruleset *rs, bool *without_log,
			       struct cs_error *err)
{
	struct apply_refusal why;
	struct cs_error first;

	*without_log = false;
	if (apply_once(nl, rs, &why, err) == 0)
		return 0;
	if (!firewall_log_unsupported(why.kernel.errnum, why.log))
		return -1;
	first = *err;
	if (ruleset_strip_log(rs) == 0)
		return -1;
	*without_log = true;
	if (apply_once(nl, rs, &why, err) != 0)
		return -1;
	cs_warn("the kernel refused the block log's rules (%s); the firewall is programmed without them, "
		"with the same verdicts: refusals are not logged, and the ruleset differs from --dry-run's by those rules",
		first.msg);
	return 0;
}

int firewall_apply(struct nf_ruleset *rs, bool *without_log, struct cs_error *err)
{
	struct mnl_socket *nl = nl_open(err);
	int rc;

	*without_log = false;
	if (!nl)
		return -1;
	/* Only once the ruleset is in: a flow from before the firewall must
	 * not live on as "established" behind it (conntrack_flush.h). */
	rc = apply_with_fallback(nl, rs, without_log, err) ? -1 : conntrack_flush(nl, err);
	mnl_socket_close(nl);
	return rc;
}
