#include "resolver/query.h"

#include <string.h>

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* The client's OPT record, if the additional section holds one: its
 * payload size (at least 512).  Every record must be readable. */
static bool read_edns(const uint8_t *msg, size_t len, size_t off, unsigned arcount, uint16_t *size)
{
	*size = 0;
	for (unsigned i = 0; i < arcount; i++) {
		struct dns_rr r;

		if (!dns_read_rr(msg, len, &off, &r))
			return false;
		if (r.type == DNS_T_OPT && r.owner[0] == '\0')
			*size = r.class < 512 ? 512 : r.class;
	}
	return true;
}

enum query_verdict query_judge(const uint8_t *msg, size_t len, const struct allowlist *al, struct query *q)
{
	size_t off = 12;

	memset(q, 0, sizeof(*q));
	if (len < 12)
		return QUERY_DROP;
	q->id = get16(msg);
	q->rd = msg[2] & 0x01;
	if (msg[2] & 0x80)
		return QUERY_DROP;  /* a response: never answer one (no reflection loops) */
	if ((msg[2] >> 3 & 0x0f) != 0)
		return QUERY_NOTIMP;
	/* one question, no answer or authority records */
	if (get16(msg + 4) != 1 || get16(msg + 6) != 0 || get16(msg + 8) != 0)
		return QUERY_FORMERR;
	if (!dns_read_name(msg, len, &off, q->name) || off + 4 > len)
		return QUERY_FORMERR;
	q->qtype = get16(msg + off);
	q->qclass = get16(msg + off + 2);
	q->question_end = off + 4;
	if (!read_edns(msg, len, q->question_end, get16(msg + 10), &q->edns_size))
		return QUERY_FORMERR;
	q->pin = allowlist_find(al, q->name);
	if (!q->pin)
		return QUERY_NXDOMAIN;
	if (q->qclass != DNS_C_IN)
		return QUERY_REFUSED;
	switch (q->qtype) {
	case DNS_T_A:
		return QUERY_FORWARD;
	case DNS_T_AAAA:
	case DNS_T_HTTPS:
	case DNS_T_SVCB:
		return QUERY_NODATA;
	default:
		return QUERY_REFUSED;
	}
}

const char *query_verdict_name(enum query_verdict v)
{
	static const char *const names[] = { "drop", "FORMERR", "NOTIMP", "NXDOMAIN", "REFUSED", "NODATA", "forward" };

	return (size_t)v < sizeof(names) / sizeof(names[0]) ? names[v] : "?";
}
