#include "netfilter/nl_batch.h"

#include <errno.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <libnftnl/batch.h>
#include <libnftnl/common.h>

#include "netfilter/render_netlink.h"

/* Pages of 128 KiB with room for one 64 KiB+ message past the page end: the
 * message that overflows a page is written past the limit, then
 * nftnl_batch_update moves on to a fresh page. */
#define BATCH_PAGE (128u * 1024u)
#define BATCH_OVERRUN (UINT16_MAX + 4096u)
#define DESC_MAX 256
#define NL_RECV_BUF (64 * 1024)

struct nl_batch {
	struct nftnl_batch *batch;
	uint32_t first_seq, next_seq;
	char (*desc)[DESC_MAX];  /* desc[seq - first_seq]: what message seq carries */
	size_t n_desc, cap_desc;
	size_t bytes;
};

int nl_fail(struct cs_error *err, int errnum, const char *what, const char *detail)
{
	const char *d = detail && *detail ? detail : "";
	const char *sep = *d ? ": " : "";

	switch (errnum) {
	case EPERM:
	case EACCES:
		return cs_fail(err, CS_EXIT_OSERR, "the kernel refused to program the firewall (%s%s%s): the container lacks CAP_NET_ADMIN; start it with --cap-add=NET_ADMIN",
			       strerror(errnum), sep, d);
	case EOPNOTSUPP:
	case EPROTONOSUPPORT:
	case EAFNOSUPPORT:
		return cs_fail(err, CS_EXIT_OSERR, "the kernel has no nf_tables support (%s%s%s); run on a kernel with nf_tables, or load it on the host: modprobe nf_tables",
			       strerror(errnum), sep, d);
	case ENOENT:
		return cs_fail(err, CS_EXIT_OSERR, "the kernel could not create %s (%s%s%s): a netfilter module is probably missing; on the host run: modprobe nf_conntrack nft_ct nft_reject_inet",
			       what, strerror(errnum), sep, d);
	default:
		return cs_fail(err, CS_EXIT_OSERR, "the kernel refused %s (%s%s%s); no command is started",
			       what, strerror(errnum), sep, d);
	}
}

struct mnl_socket *nl_open(struct cs_error *err)
{
	struct mnl_socket *nl = mnl_socket_open2(NETLINK_NETFILTER, SOCK_CLOEXEC);
	int one = 1;

	if (!nl) {
		nl_fail(err, errno, "the netlink socket", NULL);
		return NULL;
	}
	/* Small acknowledgements (no echoed payload), with the kernel's reason. */
	mnl_socket_setsockopt(nl, NETLINK_CAP_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl, NETLINK_EXT_ACK, &one, sizeof(one));
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		nl_fail(err, errno, "the netlink socket", NULL);
		mnl_socket_close(nl);
		return NULL;
	}
	return nl;
}

/* Records what message seq carries, for error messages. */
static int describe(struct nl_batch *b, uint32_t seq, const char *what)
{
	size_t i = seq - b->first_seq;

	if (i >= b->cap_desc) {
		size_t ncap = b->cap_desc ? b->cap_desc * 2 : 64;
		void *p;

		while (ncap <= i)
			ncap *= 2;
		p = realloc(b->desc, ncap * sizeof(*b->desc));
		if (!p)
			return -1;
		b->desc = p;
		b->cap_desc = ncap;
	}
	snprintf(b->desc[i], DESC_MAX, "%s", what);
	if (i + 1 > b->n_desc)
		b->n_desc = i + 1;
	return 0;
}

static struct nlmsghdr *msg(struct nl_batch *b, uint16_t type, uint16_t flags)
{
	return nftnl_nlmsg_build_hdr(nftnl_batch_buffer(b->batch), type, NFPROTO_INET,
				     flags | NLM_F_ACK, b->next_seq);
}

static int next(struct nl_batch *b, const struct nlmsghdr *nlh)
{
	b->bytes += nlh->nlmsg_len;
	b->next_seq++;
	return nftnl_batch_update(b->batch) < 0 ? -1 : 0;
}

static int add_table(struct nl_batch *b, const struct nf_ruleset *rs, uint16_t type, uint16_t flags)
{
	struct nftnl_table *t = netlink_table(rs);
	struct nlmsghdr *nlh;
	char what[DESC_MAX];

	if (!t)
		return -1;
	nlh = msg(b, type, flags);
	nftnl_table_nlmsg_build_payload(nlh, t);
	nftnl_table_free(t);
	snprintf(what, sizeof(what), "%s table inet %s", type == NFT_MSG_DELTABLE ?
		 "the replacement of the old" : "the", rs->table);
	return describe(b, b->next_seq, what) || next(b, nlh);
}

/* A set and its elements; elements are split over as many messages as the
 * 64 KiB attribute limit needs, all inside the same transaction. */
static int add_set(struct nl_batch *b, const struct nf_ruleset *rs, size_t i)
{
	struct nftnl_set *s = netlink_set(rs, i, netlink_set_id(i));
	struct nftnl_set_elems_iter *it;
	struct nlmsghdr *nlh;
	char what[DESC_MAX];
	int more = 1, rc = 0;

	if (!s)
		return -1;
	nlh = msg(b, NFT_MSG_NEWSET, NLM_F_CREATE);
	nftnl_set_nlmsg_build_payload(nlh, s);
	snprintf(what, sizeof(what), "set %s", rs->sets[i].name);
	rc = describe(b, b->next_seq, what) || next(b, nlh);
	it = rc ? NULL : nftnl_set_elems_iter_create(s);
	if (!rc && !it)
		rc = -1;
	while (!rc && more > 0 && rs->sets[i].n_elems) {
		nlh = msg(b, NFT_MSG_NEWSETELEM, NLM_F_CREATE);
		more = nftnl_set_elems_nlmsg_build_payload_iter(nlh, it);
		snprintf(what, sizeof(what), "the elements of set %s", rs->sets[i].name);
		rc = more < 0 || describe(b, b->next_seq, what) ||
		     next(b, nlh);
	}
	if (it)
		nftnl_set_elems_iter_destroy(it);
	nftnl_set_free(s);
	return rc ? -1 : 0;
}

static int add_chain(struct nl_batch *b, const struct nf_ruleset *rs, size_t i)
{
	struct nftnl_chain *c = netlink_chain(rs, i);
	struct nlmsghdr *nlh;
	char what[DESC_MAX];

	if (!c)
		return -1;
	nlh = msg(b, NFT_MSG_NEWCHAIN, NLM_F_CREATE);
	nftnl_chain_nlmsg_build_payload(nlh, c);
	nftnl_chain_free(c);
	snprintf(what, sizeof(what), "chain %s", rs->chains[i].name);
	return describe(b, b->next_seq, what) || next(b, nlh);
}

static int add_rule(struct nl_batch *b, const struct nf_ruleset *rs, size_t c, size_t i)
{
	struct nftnl_rule *r = netlink_rule(rs, c, i);
	struct nlmsghdr *nlh;
	char what[DESC_MAX];

	if (!r)
		return -1;
	nlh = msg(b, NFT_MSG_NEWRULE, NLM_F_CREATE | NLM_F_APPEND);
	nftnl_rule_nlmsg_build_payload(nlh, r);
	nftnl_rule_free(r);
	snprintf(what, sizeof(what), "rule %zu of chain %s (%s)", i + 1, rs->chains[c].name,
		 rs->chains[c].rules[i].comment);
	return describe(b, b->next_seq, what) ||
	       next(b, nlh);
}

struct nl_batch *nl_batch_build(const struct nf_ruleset *rs, struct cs_error *err)
{
	struct nl_batch *b = calloc(1, sizeof(*b));
	int rc = 0;

	if (!b || !(b->batch = nftnl_batch_alloc(BATCH_PAGE, BATCH_OVERRUN)))
		goto fail;
	b->first_seq = b->next_seq = (uint32_t)time(NULL);
	nftnl_batch_begin(nftnl_batch_buffer(b->batch), b->next_seq);
	if (describe(b, b->next_seq, "the batch start") || next(b, nftnl_batch_buffer(b->batch)))
		goto fail;
	rc |= add_table(b, rs, NFT_MSG_NEWTABLE, NLM_F_CREATE);
	rc |= add_table(b, rs, NFT_MSG_DELTABLE, 0);
	rc |= add_table(b, rs, NFT_MSG_NEWTABLE, NLM_F_CREATE);
	for (size_t i = 0; i < rs->n_sets && !rc; i++)
		rc |= add_set(b, rs, i);
	for (size_t i = 0; i < rs->n_chains && !rc; i++)
		rc |= add_chain(b, rs, i);
	for (size_t c = 0; c < rs->n_chains && !rc; c++)
		for (size_t i = 0; i < rs->chains[c].n_rules && !rc; i++)
			rc |= add_rule(b, rs, c, i);
	if (rc)
		goto fail;
	nftnl_batch_end(nftnl_batch_buffer(b->batch), b->next_seq);
	if (describe(b, b->next_seq, "the batch end") || next(b, nftnl_batch_buffer(b->batch)))
		goto fail;
	return b;
fail:
	nl_batch_free(b);
	cs_fail(err, CS_EXIT_OSERR, "could not build the netlink batch (out of memory, or an interface named in the ruleset does not exist)");
	return NULL;
}

void nl_batch_free(struct nl_batch *b)
{
	if (!b)
		return;
	if (b->batch)
		nftnl_batch_free(b->batch);
	free(b->desc);
	free(b);
}

/* The kernel's own explanation (NETLINK_EXT_ACK), when it gave one. */
static void ext_ack_message(const struct nlmsghdr *nlh, char *out, size_t len)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	size_t off = sizeof(*e);
	const struct nlattr *a;

	out[0] = '\0';
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - sizeof(struct nlmsghdr);
	mnl_attr_for_each(a, nlh, off) {
		if (mnl_attr_get_type(a) == NLMSGERR_ATTR_MSG &&
		    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
			snprintf(out, len, "%s", mnl_attr_get_str(a));
	}
}

int nl_batch_send(struct mnl_socket *nl, struct nl_batch *b, struct cs_error *err)
{
	int fd = mnl_socket_get_fd(nl);
	int n_iov = nftnl_batch_iovec_len(b->batch);
	struct iovec *iov = calloc((size_t)n_iov, sizeof(*iov));
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct msghdr mh = { .msg_name = &kernel, .msg_namelen = sizeof(kernel) };
	static char buf[NL_RECV_BUF];
	int size = (int)(b->bytes + 65536), acks_bad = 0;
	size_t acked = 0;

	if (!iov)
		return cs_fail(err, CS_EXIT_OSERR, "out of memory sending the netlink batch");
	/* Large sets need a send buffer as big as the batch (CAP_NET_ADMIN lets
	 * us force it), and room for every acknowledgement. */
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof(size)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
	size = 4 << 20;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	nftnl_batch_iovec(b->batch, iov, (uint32_t)n_iov);
	mh.msg_iov = iov;
	mh.msg_iovlen = (size_t)n_iov;
	if (sendmsg(fd, &mh, 0) < 0) {
		int e = errno;

		free(iov);
		return nl_fail(err, e, "the netlink batch", NULL);
	}
	free(iov);

	/* nfnetlink runs the whole batch inside sendmsg, so every
	 * acknowledgement is already queued: read until the queue is empty. */
	for (;;) {
		ssize_t got = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		const struct nlmsghdr *nlh;
		int left;

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (got < 0)
			return nl_fail(err, errno, "reading the kernel's acknowledgements", NULL);
		left = (int)got;
		for (nlh = (const struct nlmsghdr *)buf; mnl_nlmsg_ok(nlh, left);
		     nlh = mnl_nlmsg_next(nlh, &left)) {
			const struct nlmsgerr *e;
			size_t i = nlh->nlmsg_seq - b->first_seq;
			char detail[256];

			if (nlh->nlmsg_type != NLMSG_ERROR)
				continue;
			e = mnl_nlmsg_get_payload(nlh);
			acked++;
			if (e->error == 0 || acks_bad)
				continue;
			ext_ack_message(nlh, detail, sizeof(detail));
			nl_fail(err, -e->error, i < b->n_desc ? b->desc[i] : "the batch", detail);
			acks_bad = 1;  /* the first error is the cause; keep draining */
		}
	}
	if (acks_bad)
		return -1;
	/* Every message but BEGIN and END asked for an acknowledgement. */
	if (acked != b->n_desc - 2)
		return cs_fail(err, CS_EXIT_OSERR, "the kernel acknowledged %zu of %zu firewall messages; cannot confirm the firewall, no command is started",
			       acked, b->n_desc - 2);
	return 0;
}
