#include "netfilter/nl_batch.h"

#include <linux/netfilter.h>
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
				     flags | NLM_F_ACK, b->next_seq);
}

int nl_batch_add(struct nl_batch *b, const struct nlmsghdr *nlh, const char *what)
{
	if (grow_array((void **)&b->desc, &b->cap_desc, b->n_desc, sizeof(*b->desc), 64))
		return -1;
	snprintf(b->desc[b->n_desc++], NL_BATCH_DESC_MAX, "%s", what);
	b->bytes += nlh->nlmsg_len;
	b->next_seq++;
	return nftnl_batch_update(b->pages) < 0 ? -1 : 0;
}

int nl_batch_begin(struct nl_batch *b)
{
	nftnl_batch_begin(nftnl_batch_buffer(b->pages), b->next_seq);
	return nl_batch_add(b, nftnl_batch_buffer(b->pages), "the batch start");
}

int nl_batch_end(struct nl_batch *b)
{
	nftnl_batch_end(nftnl_batch_buffer(b->pages), b->next_seq);
	return nl_batch_add(b, nftnl_batch_buffer(b->pages), "the batch end");
}

const char *nl_batch_describe(const struct nl_batch *b, uint32_t seq)
{
	size_t i = seq - b->first_seq;

	return i < b->n_desc ? b->desc[i] : NULL;
}

size_t nl_batch_acks_expected(const struct nl_batch *b)
{
	return b->n_desc >= 2 ? b->n_desc - 2 : 0;
}
