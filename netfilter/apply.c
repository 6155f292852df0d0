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

int firewall_apply_seen(struct mnl_socket *nl, const struct nf_ruleset *rs, bool exists, uint32_t genid,
			int *attempts, struct cs_error *err)
{
	struct nl_query q;
	int rc = -1;

	*attempts = 0;
	if (nl_query_init(&q, nl, err))
		return -1;
	/* At most twice: a table that appeared since we looked (EEXIST on the
	 * exclusive create) or any commit since we looked (ERESTART from the
	 * generation check) gets one more look and the matching batch. */
	for (;;) {
		struct nl_batch *b = render_netlink(rs, exists ? NL_TABLE_REPLACE : NL_TABLE_CREATE, genid,
						    (uint32_t)time(NULL), err);
		int refused = 0;

		if (!b)
			break;
		++*attempts;
		if (nl_send(nl, b, &refused, err) == 0) {
			rc = readback_verify(nl, rs, b, err);
			nl_batch_free(b);
			break;
		}
		nl_batch_free(b);
		if (*attempts > 1 || (refused != EEXIST && refused != ERESTART))
			break;  /* err says why; nothing was committed */
		if (nl_query_table_exists(&q, rs->table, &exists, &genid, err))
			break;
	}
	nl_query_fini(&q);
	return rc;
}

static int apply_once(struct mnl_socket *nl, const struct nf_ruleset *rs, struct cs_error *err)
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
	return firewall_apply_seen(nl, rs, false, 0, &attempts, err);
}

/* A view of rs without its log rules: its own chains and rule arrays, the
 * sets shared (free it with free_view, never ruleset_free). */
static int view_without_log(const struct nf_ruleset *rs, struct nf_ruleset *v)
{
	*v = *rs;
	v->chains = calloc(rs->n_chains + 1, sizeof(*v->chains));
	if (!v->chains)
		return -1;
	for (size_t i = 0; i < rs->n_chains; i++) {
		const struct nf_chain *c = &rs->chains[i];
		struct nf_chain *d = &v->chains[i];

		*d = *c;
		d->n_rules = 0;
		d->rules = calloc(c->n_rules + 1, sizeof(*d->rules));
		if (!d->rules)
			return -1;
		for (size_t j = 0; j < c->n_rules; j++)
			if (c->rules[j].verdict != NF_VERDICT_LOG)
				d->rules[d->n_rules++] = c->rules[j];
		d->cap_rules = c->n_rules + 1;
	}
	return 0;
}

static void free_view(struct nf_ruleset *v)
{
	for (size_t i = 0; v->chains && i < v->n_chains; i++)
		free(v->chains[i].rules);
	free(v->chains);
}

static bool has_log(const struct nf_ruleset *rs)
{
	for (size_t i = 0; i < rs->n_chains; i++)
		for (size_t j = 0; j < rs->chains[i].n_rules; j++)
			if (rs->chains[i].rules[j].verdict == NF_VERDICT_LOG)
				return true;
	return false;
}

/* The block log must never cost the start: a kernel without nft's log or
 * limit expression (or nfnetlink_log) refuses the whole batch, so the same
 * ruleset without its log rules is tried once more.  Those rules decide
 * nothing, so every verdict is the same; only the logging is lost, and the
 * warning says so.  When that fails too, its error is the start's. */
static int apply_with_fallback(struct mnl_socket *nl, const struct nf_ruleset *rs, struct cs_error *err)
{
	struct cs_error first;
	struct nf_ruleset plain;
	int rc;

	if (apply_once(nl, rs, err) == 0)
		return 0;
	if (!has_log(rs))
		return -1;
	first = *err;
	if (view_without_log(rs, &plain)) {
		free_view(&plain);
		return -1;
	}
	rc = apply_once(nl, &plain, err);
	free_view(&plain);
	if (rc == 0)
		cs_warn("the kernel refused the block log's rules (%s); the firewall is programmed without them, "
			"with the same verdicts: refusals are not logged, and the ruleset differs from --dry-run's by those rules",
			first.msg);
	return rc;
}

int firewall_apply(const struct nf_ruleset *rs, struct cs_error *err)
{
	struct mnl_socket *nl = nl_open(err);
	int rc;

	if (!nl)
		return -1;
	/* Only once the ruleset is in: a flow from before the firewall must
	 * not live on as "established" behind it (conntrack_flush.h). */
	rc = apply_with_fallback(nl, rs, err) ? -1 : conntrack_flush(nl, err);
	mnl_socket_close(nl);
	return rc;
}
