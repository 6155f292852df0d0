/* A finished nftables transaction as data: its netlink messages on libnftnl
 * batch pages, each with a sequence number and a description, so an error
 * acknowledgement can name the object the kernel refused.
 *
 * The netlink renderer (render_netlink.h) fills it while it walks the model;
 * the transport (nl_transport.h) only sends it and matches the kernel's
 * acknowledgements against it. */
#ifndef CLI_SANDBOX_NL_BATCH_H
#define CLI_SANDBOX_NL_BATCH_H

#include <libmnl/libmnl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NL_BATCH_DESC_MAX 256

struct nftnl_batch;

struct nl_batch_msg {
	char desc[NL_BATCH_DESC_MAX];     /* what the message carries */
	bool log;                         /* a rule with the block log's expressions */
};

struct nl_batch {
	struct nftnl_batch *pages;
	uint32_t first_seq, next_seq;
	struct nl_batch_msg *desc;        /* desc[seq - first_seq]: message seq */
	size_t n_desc, cap_desc;
	size_t bytes;                      /* every message together */
	struct nlmsghdr *last;             /* the latest message but BEGIN: END's predecessor asks for the ACK */
};

/* An empty batch whose BEGIN message has sequence number first_seq; NULL
 * when memory runs out. */
struct nl_batch *nl_batch_new(uint32_t first_seq);
void nl_batch_free(struct nl_batch *b);

/* The header of the next message (family inet), written on the current page; the caller adds the payload, then calls nl_batch_add. */
struct nlmsghdr *nl_batch_next(struct nl_batch *b, uint16_t type, uint16_t flags);
/* Records what the message just written carries and moves past it (onto a
 * fresh page when this one is full).  0, or -1 when memory runs out. */
int nl_batch_add(struct nl_batch *b, const struct nlmsghdr *nlh, const char *what);

/* The BEGIN and END messages that frame the transaction; 0 or -1.  A
 * non-zero genid makes the kernel refuse the whole batch (ERESTART) unless
 * the ruleset is still at that generation. */
int nl_batch_begin(struct nl_batch *b, uint32_t genid);
int nl_batch_end(struct nl_batch *b);

/* Marks the message just added as a rule that carries the block log's
 * expressions (limit, log): a kernel without them refuses that message. */
void nl_batch_mark_log(struct nl_batch *b);

/* What message seq carries, or NULL when seq is not one of the batch's. */
const char *nl_batch_describe(const struct nl_batch *b, uint32_t seq);
/* Whether message seq is one that nl_batch_mark_log marked. */
bool nl_batch_is_log(const struct nl_batch *b, uint32_t seq);

/* Calls fn for every message of the batch in order, BEGIN and END
 * included; stops at the first non-zero return and returns it. */
int nl_batch_foreach(const struct nl_batch *b, int (*fn)(const struct nlmsghdr *nlh, void *ctx), void *ctx);

/* Successful acknowledgements a committed batch gets: one, for the last
 * message before END (nl_batch_end asks for it); none for an empty batch. */
size_t nl_batch_acks_expected(const struct nl_batch *b);

#endif
