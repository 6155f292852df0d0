/* Reading nf_tables state over netlink: one request, its replies, and the
 * ruleset generation they belong to.  Used before the batch (does our table
 * exist, at which generation) and by the readback (dumps pinned to one
 * generation).  It knows nothing of the ruleset model. */
#ifndef CLI_SANDBOX_NL_QUERY_H
#define CLI_SANDBOX_NL_QUERY_H

#include <libmnl/libmnl.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/status.h"

/* Called for every data message of a reply; MNL_CB_OK to go on,
 * MNL_CB_ERROR (with the context's own error set) to stop. */
typedef int (*nl_reply_fn)(const struct nlmsghdr *nlh, void *ctx);

struct nl_query {
	struct mnl_socket *nl;
	char *buf;  /* one dump chunk; on the heap, so it is given back after */
	uint32_t seq;
	/* Every reply message carries the low 16 bits of the generation it was
	 * read at; pin_gen holds them once the first reply came (pinned).  A
	 * reply of another generation, or a dump the kernel marks interrupted,
	 * sets moved. */
	bool pinned, moved;
	uint16_t pin_gen;
};

/* 0, or -1 with err when memory runs out; nl_query_fini releases it. */
int nl_query_init(struct nl_query *q, struct mnl_socket *nl, struct cs_error *err);
void nl_query_fini(struct nl_query *q);

/* Room for one request: a header and a few names. */
#define NL_QUERY_REQ_MAX 512

/* A request of `type` for family inet (NLM_F_DUMP with dump) built in buf
 * (NL_QUERY_REQ_MAX bytes); the caller adds attributes. */
struct nlmsghdr *nl_query_request(struct nl_query *q, char *buf, uint16_t type, bool dump);

/* Sends req and reads its replies to the end (the ACK, or DONE of a dump),
 * calling fn for each data message.  Returns 0; the kernel's errno when it
 * refused the request (ENOENT: no such object), with nothing in err; or -1
 * with err set (the socket failed, or fn stopped: the rest of the reply is read and dropped). */
int nl_query_run(struct nl_query *q, struct nlmsghdr *req, nl_reply_fn fn, void *ctx,
		 const char *what, struct cs_error *err);

/* The current ruleset generation (NFT_MSG_GETGEN); 0 or -1 with err. */
int nl_query_genid(struct nl_query *q, uint32_t *genid, struct cs_error *err);

/* Whether table inet `name` exists, and the generation that answer belongs
 * to (for the batch's generation check); 0 or -1 with err. */
int nl_query_table_exists(struct nl_query *q, const char *name, bool *exists, uint32_t *genid,
			  struct cs_error *err);

#endif
