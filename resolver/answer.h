/* The answer verdict: what the pinning resolver does with the upstream's
 * answer to the A query it forwarded, decided from its bytes alone (pure).
 *
 * Only the CNAME chain from the question counts, read in order as glibc
 * reads it: a record counts when its owner is where the chain stands at
 * that point; everything else (other owners, the authority and additional
 * sections) is dropped, never passed to the client.  Then:
 *   - not the answer to our query (id, question): IGNORE (keep waiting; a
 *     spoofed packet must not end the wait);
 *   - truncated, a record that cannot be read (a compression loop, data
 *     cut off), a CNAME target that is not a plain host name, a CNAME
 *     loop or a chain longer than ANSWER_CHAIN_MAX, more
 *     than ANSWER_A_MAX A records, an A record of the wrong length, a
 *     forbidden address (base/ipv4.h), a private one for a name not
 *     declared internal, or an RCODE other than NOERROR and NXDOMAIN:
 *     SERVFAIL, and nothing is pinned;
 *   - NXDOMAIN: NXDOMAIN; NOERROR without an A record: NODATA;
 *   - otherwise PIN: the addresses go into the set first, the client gets
 *     the chain after the kernel's acknowledgement. */
#ifndef CLI_SANDBOX_RESOLVER_ANSWER_H
#define CLI_SANDBOX_RESOLVER_ANSWER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profiles/dns_wire.h"

#define ANSWER_A_MAX 32
#define ANSWER_CHAIN_MAX 8     /* names: the question and 7 CNAME targets */
#define ANSWER_RECORDS_MAX (ANSWER_A_MAX + ANSWER_CHAIN_MAX)

enum answer_kind {
	ANSWER_IGNORE,
	ANSWER_SERVFAIL,
	ANSWER_NXDOMAIN,
	ANSWER_NODATA,
	ANSWER_PIN,
};

/* One record kept for the client: a CNAME from chain[owner] to
 * chain[owner + 1], or an A record of chain[owner]. */
struct answer_record {
	uint16_t type;
	uint8_t owner;
	uint32_t addr;   /* A: host order */
	uint32_t ttl;    /* as the upstream gave it */
};

struct answer {
	enum answer_kind kind;
	const char *why;                             /* SERVFAIL and IGNORE: the reason, for the log */
	char chain[ANSWER_CHAIN_MAX][DNS_NAME_MAX + 1];
	size_t n_chain;
	struct answer_record rec[ANSWER_RECORDS_MAX];
	size_t n_rec;
	uint32_t addrs[ANSWER_A_MAX];                /* distinct, host order */
	size_t n_addrs;
	uint32_t ttl_min;                            /* the smallest TTL of the records kept */
};

void answer_judge(const uint8_t *msg, size_t len, uint16_t id, const char *qname, bool internal,
		  struct answer *a);

/* The TTL handed out: the upstream's, but never more than timeout_s -
 * margin_s, so a client never trusts an answer past its element's expiry;
 * at least 0.  (The caller keeps margin_s below timeout_s.) */
uint32_t answer_ttl(uint32_t upstream_ttl, uint32_t timeout_s, uint32_t margin_s);

const char *answer_kind_name(enum answer_kind k);

#endif
