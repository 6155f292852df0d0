/* The messages the pinning resolver sends: its answers to clients (built
 * here from the verdicts, never copied from the upstream) and its own
 * query to the upstream.  Pure. */
#ifndef CLI_SANDBOX_RESOLVER_REPLY_H
#define CLI_SANDBOX_RESOLVER_REPLY_H

#include <stddef.h>
#include <stdint.h>

#include "resolver/answer.h"
#include "resolver/query.h"

#define REPLY_MAX 4096
#define REPLY_EDNS_SIZE 1232   /* what it offers and accepts over UDP */

/* The answer to the client's query msg (judged into q) with rcode and, for
 * a NOERROR with records, a's chain, each TTL answer_ttl-capped by ttl_cap.
 * No larger than room (512, or the client's EDNS size, over UDP; 65535 over
 * TCP): a chain that does not fit goes out as an empty truncated answer,
 * and the client asks again over TCP.  Its length (0 when even the header
 * and question do not fit). */
size_t reply_build(uint8_t *out, size_t room, const uint8_t *msg, const struct query *q, unsigned rcode,
		   const struct answer *a, uint32_t ttl_cap);

/* The A query for name sent upstream, with an EDNS OPT record offering
 * REPLY_EDNS_SIZE bytes (32 A records do not fit in 512).  Nothing of the
 * client's message is forwarded: only the name, which matched the list.
 * Its length, or 0. */
size_t reply_upstream_query(uint8_t *out, uint16_t id, const char *name);

#endif
