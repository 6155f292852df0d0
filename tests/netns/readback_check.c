/* The readback against a kernel that holds something else: a test tool run
 * inside a network namespace by test_readback.sh.
 *
 *   readback_check apply    program the test ruleset (firewall_apply)
 *   readback_check verify   only read the table back and compare it with the
 *                           batch the test ruleset renders to: exit 0 when
 *                           the kernel holds exactly that, 1 (and the reason
 *                           on stderr) otherwise
 *   readback_check race CMD look, run CMD (which changes the ruleset), then
 *                           program with the stale view: prints how many
 *                           batches were sent
 *   readback_check refuse   send the batch with one rule in its middle made
 *                           invalid (an expression name that does not
 *                           exist): prints that rule's description and the
 *                           errno the transport reported; exit 1 as a start
 *                           would
 *
 * The test ruleset is the interactive one with a small set (three ranges,
 * the first not at 0.0.0.0) on tcp/443: every kind of expression, a set
 * lookup, intervals.  With READBACK_PINNED=1 in the environment, the same
 * with CLI_SANDBOX_DNS=pinned's dynamic set and rules. */
#include <errno.h>
#include <linux/netfilter/nf_tables.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netfilter/apply.h"
#include "netfilter/nl_query.h"
#include "netfilter/nl_transport.h"
#include "netfilter/readback.h"
#include "netfilter/render_netlink.h"
#include "netfilter/ruleset_build.h"
#include "profiles/policy.h"

static int build(struct policy *p, struct nf_ruleset *rs, struct cs_error *err)
{
	static const struct ipv4_range r[] = {
		{ 0xc0000210u, 0xc000021fu },  /* 192.0.2.16/28 */
		{ 0xc6336400u, 0xc633643fu },  /* 198.51.100.0/26 */
		{ 0xc6336480u, 0xc63364bfu },  /* 198.51.100.128/26 */
	};

	policy_init(p, CS_PROFILE_INTERACTIVE);
	/* READBACK_PINNED=1: with the pinning resolver's set and rules
	 * (CLI_SANDBOX_DNS=pinned, resolver uid 999) */
	if (getenv("READBACK_PINNED")) {
		p->dns_pinned = true;
		p->resolver_uid = 999;
	}
	return policy_add_dest(p, IPPROTO_TCP, 443, r, sizeof(r) / sizeof(r[0]), "readback test") ||
	       ruleset_build(p, rs, err);
}

/* The fourth rule of the batch gets an expression named "xyz" for "cmp". */
struct spoil {
	const struct nl_batch *b;
	int rules;
	char what[NL_BATCH_DESC_MAX];
};

static int spoil_one(const struct nlmsghdr *nlh, void *ctx)
{
	struct spoil *sp = ctx;
	char *cmp;

	if ((nlh->nlmsg_type & 0xff) != NFT_MSG_NEWRULE || ++sp->rules != 4)
		return 0;
	cmp = memmem(mnl_nlmsg_get_payload(nlh), mnl_nlmsg_get_payload_len(nlh), "cmp", 4);
	if (!cmp)
		return -1;
	memcpy(cmp, "xyz", 3);  /* the pages are the tool's own: writable */
	snprintf(sp->what, sizeof(sp->what), "%s", nl_batch_describe(sp->b, nlh->nlmsg_seq));
	return 1;
}

int main(int argc, char **argv)
{
	struct cs_error err = { 0 };
	struct policy p;
	struct nf_ruleset rs;
	struct mnl_socket *nl;
	struct nl_batch *b;
	struct nl_query q;
	uint32_t genid;
	bool exists;
	int rc = 1, attempts;

	if (argc < 2 || build(&p, &rs, &err)) {
		fprintf(stderr, "usage: readback_check apply|verify|race CMD (%s)\n", err.msg);
		return 2;
	}
	if (strcmp(argv[1], "apply") == 0) {
		rc = firewall_apply(&rs, &(bool){ false }, &err) ? 1 : 0;
	} else if (strcmp(argv[1], "verify") == 0 && (nl = nl_open(&err))) {
		b = render_netlink(&rs, NL_TABLE_CREATE, 0, 1, &err);
		rc = b && readback_verify(nl, &rs, b, &err) == 0 ? 0 : 1;
		nl_batch_free(b);
		mnl_socket_close(nl);
	} else if (strcmp(argv[1], "refuse") == 0 && (nl = nl_open(&err))) {
		struct spoil sp = { 0 };
		struct nl_refusal refused = { 0 };

		b = render_netlink(&rs, NL_TABLE_CREATE, 0, 1, &err);
		sp.b = b;
		if (b && nl_batch_foreach(b, spoil_one, &sp) == 1) {
			rc = nl_send(nl, b, &refused, &err) ? 1 : 0;
			printf("spoilt: %s; refused: %d\n", sp.what, refused.errnum);
		}
		nl_batch_free(b);
		mnl_socket_close(nl);
	} else if (strcmp(argv[1], "race") == 0 && argc == 3 && (nl = nl_open(&err))) {
		if (nl_query_init(&q, nl, &err) == 0 &&
		    nl_query_table_exists(&q, rs.table, &exists, &genid, &err) == 0 &&
		    system(argv[2]) == 0) {
			rc = firewall_apply_seen(nl, &rs, exists, genid, &attempts, &err) ? 1 : 0;
			printf("seen: table %s; batches sent: %d\n", exists ? "present" : "absent", attempts);
		}
		nl_query_fini(&q);
		mnl_socket_close(nl);
	}
	if (rc)
		fprintf(stderr, "%s\n", err.msg);
	ruleset_free(&rs);
	policy_free(&p);
	return rc;
}
