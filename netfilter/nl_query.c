#include "netfilter/nl_query.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libnftnl/common.h>

#include "netfilter/nl_transport.h"

/* A dump arrives in chunks of at most 32 KiB; one buffer holds a chunk. */
#define QUERY_RECV_BUF (64 * 1024)

int nl_query_init(struct nl_query *q, struct mnl_socket *nl, struct cs_error *err)
{
	memset(q, 0, sizeof(*q));
	q->nl = nl;
	q->seq = (uint32_t)time(NULL) ^ 0x5a5a0000u;
	q->buf = malloc(QUERY_RECV_BUF);
	if (!q->buf)
		return cs_fail(err, CS_EXIT_OSERR, "out of memory reading the firewall from the kernel");
	return 0;
}

void nl_query_fini(struct nl_query *q)
{
	free(q->buf);
	q->buf = NULL;
}

struct nlmsghdr *nl_query_request(struct nl_query *q, char *buf, uint16_t type, bool dump)
{
	return nftnl_nlmsg_build_hdr(buf, type, NFPROTO_INET, dump ? NLM_F_DUMP : NLM_F_ACK, ++q->seq);
}

/* The generation stamp of a reply: nf_tables puts the low 16 bits of its
 * generation counter into every message's nfgenmsg.res_id. */
static void pin(struct nl_query *q, const struct nlmsghdr *nlh)
{
	const struct nfgenmsg *g;
	uint16_t gen;

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*g)))
		return;
	g = mnl_nlmsg_get_payload(nlh);
	gen = ntohs(g->res_id);
	if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
		q->moved = true;
	if (!q->pinned) {
		q->pinned = true;
		q->pin_gen = gen;
	} else if (gen != q->pin_gen) {
		q->moved = true;
	}
}

int nl_query_run(struct nl_query *q, struct nlmsghdr *req, nl_reply_fn fn, void *ctx,
		 const char *what, struct cs_error *err)
{
	char *buf = q->buf;
	uint32_t portid = mnl_socket_get_portid(q->nl);
	bool stopped = false;  /* fn said stop: drain the rest, then fail */

	if (mnl_socket_sendto(q->nl, req, req->nlmsg_len) < 0)
		return cs_fail(err, CS_EXIT_OSERR, "cannot read %s from the kernel (%s); no command is started", what, strerror(errno));
	for (;;) {
		ssize_t got = mnl_socket_recvfrom(q->nl, buf, QUERY_RECV_BUF);
		const struct nlmsghdr *nlh;
		int left;

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return cs_fail(err, CS_EXIT_OSERR, "cannot read %s from the kernel (%s); no command is started",
				       what, got < 0 ? strerror(errno) : "the socket closed");
		left = (int)got;
		for (nlh = (const struct nlmsghdr *)buf; mnl_nlmsg_ok(nlh, left); nlh = mnl_nlmsg_next(nlh, &left)) {
			if (nlh->nlmsg_seq != req->nlmsg_seq || nlh->nlmsg_pid != portid)
				continue;  /* not ours: a late reply to an earlier request */
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);

				if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
					return cs_fail(err, CS_EXIT_OSERR, "the kernel sent a truncated answer reading %s; no command is started", what);
				return stopped ? -1 : -e->error;  /* 0: the request's ACK, the end */
			}
			if (nlh->nlmsg_type == NLMSG_DONE) {
				int status = 0;

				if (nlh->nlmsg_len >= NLMSG_LENGTH(sizeof(int)))
					memcpy(&status, mnl_nlmsg_get_payload(nlh), sizeof(status));
				if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
					q->moved = true;
				return stopped ? -1 : status < 0 ? -status : 0;
			}
			if (nlh->nlmsg_type == NLMSG_NOOP || nlh->nlmsg_type == NLMSG_OVERRUN)
				continue;
			pin(q, nlh);
			if (fn && !stopped && fn(nlh, ctx) != MNL_CB_OK)
				stopped = true;
		}
	}
}

struct gen_ctx {
	uint32_t genid;
	bool seen;
};

static int gen_cb(const struct nlmsghdr *nlh, void *data)
{
	struct gen_ctx *g = data;
	const struct nlattr *a;

	if ((nlh->nlmsg_type & 0xff) != NFT_MSG_NEWGEN)
		return MNL_CB_OK;
	mnl_attr_for_each(a, nlh, sizeof(struct nfgenmsg)) {
		if (mnl_attr_get_type(a) == NFTA_GEN_ID && mnl_attr_validate(a, MNL_TYPE_U32) == 0) {
			g->genid = ntohl(mnl_attr_get_u32(a));
			g->seen = true;
		}
	}
	return MNL_CB_OK;
}

int nl_query_genid(struct nl_query *q, uint32_t *genid, struct cs_error *err)
{
	char buf[NL_QUERY_REQ_MAX];
	struct gen_ctx g = { 0 };
	struct nlmsghdr *req = nl_query_request(q, buf, NFT_MSG_GETGEN, false);
	int rc = nl_query_run(q, req, gen_cb, &g, "the ruleset generation", err);

	if (rc > 0)
		return nl_fail(err, rc, "to report the ruleset generation", NULL);
	if (rc < 0)
		return -1;
	if (!g.seen)
		return cs_fail(err, CS_EXIT_OSERR, "the kernel did not report its ruleset generation; no command is started");
	*genid = g.genid;
	return 0;
}

int nl_query_table_exists(struct nl_query *q, const char *name, bool *exists, uint32_t *genid,
			  struct cs_error *err)
{
	char buf[NL_QUERY_REQ_MAX];
	struct nlmsghdr *req;
	int rc;

	/* The generation first: if anything commits between the two answers,
	 * the batch that carries this generation is refused and retried. */
	if (nl_query_genid(q, genid, err))
		return -1;
	req = nl_query_request(q, buf, NFT_MSG_GETTABLE, false);
	mnl_attr_put_strz(req, NFTA_TABLE_NAME, name);
	rc = nl_query_run(q, req, NULL, NULL, "the table", err);
	if (rc < 0)
		return -1;
	if (rc != 0 && rc != ENOENT)
		return nl_fail(err, rc, "to look up the table", NULL);
	*exists = rc == 0;
	return 0;
}
