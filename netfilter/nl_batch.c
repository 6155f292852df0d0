#include "netfilter/nl_batch.h"

#include <arpa/inet.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <stdio.h>
#include <stdlib.h>

#include <libnftnl/batch.h>
#include <libnftnl/common.h>

#include "base/grow.h"

/* Pages of 128 KiB with room for one 64 KiB+ message past the page end: the
 * message that overflows a page is written past the limit, then
 * nftnl_batch_update moves on to a fresh page. */
#define BATCH_PAGE (128u * 1024u)
#define BATCH_OVERRUN (UINT16_MAX + 4096u)

struct nl_batch *nl_batch_new(uint32_t first_seq)
{
	struct nl_batch *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->pages = nftnl_batch_alloc(BATCH_PAGE, BATCH_OVERRUN);
	if (!b->pages) {
		free(b);
		return NULL;
	}
	b->first_seq = b->next_seq = first_seq;
	return b;
}

void nl_batch_free(struct nl_batch *b)
{
	if (!b)
		return;
	if (b->pages)
		nftnl_batch_free(b->pages);
	free(b->desc);
	free(b);
}

struct nlmsghdr *nl_batch_next(struct nl_batch *b, uint16_t type, uint16_t flags)
{
	return nftnl_nlmsg_build_hdr(nftnl_batch_buffer(b->pages), type, NFPROTO_INET,
				     flags, b->next_seq);
}

int nl_batch_add(struct nl_batch *b, const struct nlmsghdr *nlh, const char *what)
{
	if (grow_array((void **)&b->desc, &b->cap_desc, b->n_desc, sizeof(*b->desc), 64))
		return -1;
	snprintf(b->desc[b->n_desc].desc, NL_BATCH_DESC_MAX, "%s", what);
	b->desc[b->n_desc++].log = false;
	b->bytes += nlh->nlmsg_len;
	b->next_seq++;
	b->last = (struct nlmsghdr *)nlh;  /* pages stay where they are: the pointer holds */
	return nftnl_batch_update(b->pages) < 0 ? -1 : 0;
}

int nl_batch_begin(struct nl_batch *b, uint32_t genid)
{
	struct nlmsghdr *nlh = nftnl_batch_begin(nftnl_batch_buffer(b->pages), b->next_seq);

	int rc;

	if (genid)
		mnl_attr_put_u32(nlh, NFNL_BATCH_GENID, htonl(genid));
	rc = nl_batch_add(b, nlh, "the batch start");
	b->last = NULL;  /* BEGIN is never acknowledged */
	return rc;
}

int nl_batch_end(struct nl_batch *b)
{
	/* The kernel reports every refused message whatever its flags, after
	 * the whole batch, and a failed commit against BEGIN; one
	 * acknowledgement, on the last message, then says the batch is done.
	 * (One per message cost two dozen more reads on every start.) */
	if (b->last)
		b->last->nlmsg_flags |= NLM_F_ACK;
	nftnl_batch_end(nftnl_batch_buffer(b->pages), b->next_seq);
	return nl_batch_add(b, nftnl_batch_buffer(b->pages), "the batch end");
}

void nl_batch_mark_log(struct nl_batch *b)
{
	if (b->n_desc)
		b->desc[b->n_desc - 1].log = true;
}

const char *nl_batch_describe(const struct nl_batch *b, uint32_t seq)
{
	size_t i = seq - b->first_seq;

	return i < b->n_desc ? b->desc[i].desc : NULL;
}

bool nl_batch_is_log(const struct nl_batch *b, uint32_t seq)
{
	size_t i = seq - b->first_seq;

	return i < b->n_desc && b->desc[i].log;
}

int nl_batch_foreach(const struct nl_batch *b, int (*fn)(const struct nlmsghdr *nlh, void *ctx), void *ctx)
{
	int n_iov = nftnl_batch_iovec_len(b->pages);
	struct iovec *iov = calloc((size_t)n_iov, sizeof(*iov));
	int rc = 0;

	if (!iov)
		return -1;
	nftnl_batch_iovec(b->pages, iov, (uint32_t)n_iov);
	for (int i = 0; i < n_iov && !rc; i++) {
		const struct nlmsghdr *nlh = iov[i].iov_base;
		int left = (int)iov[i].iov_len;

		for (; !rc && mnl_nlmsg_ok(nlh, left); nlh = mnl_nlmsg_next(nlh, &left))
			rc = fn(nlh, ctx);
	}
	free(iov);
	return rc;
}

size_t nl_batch_acks_expected(const struct nl_batch *b)
{
	return b->n_desc > 2 ? 1 : 0;
}
