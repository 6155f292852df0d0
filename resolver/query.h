/* The query verdict: what the pinning resolver does with a client's
 * message, decided from its bytes alone (pure).
 *
 *   - not a query it can read (cut off, a response, several questions, a
 *     name it cannot decompress): FORMERR, or nothing when even the header
 *     is missing;
 *   - an opcode other than QUERY: NOTIMP;
 *   - a name that is not exactly one of the allowed names (a subdomain
 *     included), whatever the type: NXDOMAIN, never forwarded;
 *   - an allowed name, class IN: A is forwarded; AAAA, HTTPS and SVCB get
 *     NODATA here (the firewall pins IPv4 only, and HTTPS/SVCB records
 *     would hand out addresses and names that were never pinned); any
 *     other type, or another class: REFUSED. */
#ifndef CLI_SANDBOX_RESOLVER_QUERY_H
#define CLI_SANDBOX_RESOLVER_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "resolver/allowlist.h"

#define DNS_T_A 1
#define DNS_T_CNAME 5
#define DNS_T_AAAA 28
#define DNS_T_OPT 41
#define DNS_T_SVCB 64
#define DNS_T_HTTPS 65
#define DNS_C_IN 1

#define DNS_RCODE_NOERROR 0
#define DNS_RCODE_FORMERR 1
#define DNS_RCODE_SERVFAIL 2
#define DNS_RCODE_NXDOMAIN 3
#define DNS_RCODE_NOTIMP 4
#define DNS_RCODE_REFUSED 5

enum query_verdict {
	QUERY_DROP,       /* no header to answer to */
	QUERY_FORMERR,
	QUERY_NOTIMP,
	QUERY_NXDOMAIN,
	QUERY_REFUSED,
	QUERY_NODATA,
	QUERY_FORWARD,
};

struct query {
	uint16_t id;
	bool rd;
	size_t question_end;          /* the question is msg[12, question_end) */
	char name[DNS_NAME_MAX + 1];  /* lower case */
	uint16_t qtype, qclass;
	uint16_t edns_size;           /* the client's OPT payload size, 0 without OPT */
	const struct pin_name *pin;   /* QUERY_FORWARD, QUERY_NODATA, QUERY_REFUSED of an allowed name */
};

enum query_verdict query_judge(const uint8_t *msg, size_t len, const struct allowlist *al, struct query *q);

/* The verdict's name, for the log and the tests. */
const char *query_verdict_name(enum query_verdict v);

#endif
