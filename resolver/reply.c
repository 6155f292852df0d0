#include "resolver/reply.h"

#include <string.h>

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

/* A name in wire form at out[*o]: a pointer when an earlier copy exists
 * (offs[i] != 0), else its labels, remembering where they went. */
static bool put_name(uint8_t *out, size_t room, size_t *o, const char *name, size_t *where)
{
	size_t len = strlen(name);

	if (*where) {
		if (*o + 2 > room)
			return false;
		put16(out + *o, (uint16_t)(0xc000 | *where));
		*o += 2;
		return true;
	}
	if (*o + len + 2 > room || *o > 0x3fff)
		return false;
	*where = *o;
	for (size_t i = 0, start = 0; i <= len; i++) {
		if (i == len || name[i] == '.') {
			out[*o] = (uint8_t)(i - start);
			memcpy(out + *o + 1, name + start, i - start);
			*o += 1 + i - start;
			start = i + 1;
		}
	}
	out[(*o)++] = 0;
	return true;
}

static bool put_records(uint8_t *out, size_t room, size_t *o, const struct answer *a, uint32_t ttl_cap)
{
	size_t where[ANSWER_CHAIN_MAX] = { 12 };  /* the question's name, as the client wrote it */

	for (size_t i = 0; i < a->n_rec; i++) {
		const struct answer_record *r = &a->rec[i];
		uint32_t ttl = r->ttl < ttl_cap ? r->ttl : ttl_cap;
		size_t rdlen_at;

		if (!put_name(out, room, o, a->chain[r->owner], &where[r->owner]) || *o + 10 > room)
			return false;
		put16(out + *o, r->type);
		put16(out + *o + 2, DNS_C_IN);
		put32(out + *o + 4, ttl);
		rdlen_at = *o + 8;
		*o += 10;
		if (r->type == DNS_T_A) {
			if (*o + 4 > room)
				return false;
			put32(out + *o, r->addr);
			*o += 4;
		} else if (!put_name(out, room, o, a->chain[r->owner + 1], &where[r->owner + 1])) {
			return false;
		}
		put16(out + rdlen_at, (uint16_t)(*o - rdlen_at - 2));
	}
	return true;
}

static bool put_opt(uint8_t *out, size_t room, size_t *o)
{
	if (*o + 11 > room)
		return false;
	memset(out + *o, 0, 11);
	put16(out + *o + 1, DNS_T_OPT);
	put16(out + *o + 3, REPLY_EDNS_SIZE);
	*o += 11;
	return true;
}

size_t reply_build(uint8_t *out, size_t room, const uint8_t *msg, const struct query *q, unsigned rcode,
		   const struct answer *a, uint32_t ttl_cap)
{
	size_t qlen = q->question_end - 12, o;
	bool fits = true;

	if (room > REPLY_MAX)
		room = REPLY_MAX;
	if (12 + qlen + (q->edns_size ? 11 : 0) > room)
		return 0;
	memset(out, 0, 12);
	put16(out, q->id);
	out[2] = (uint8_t)(0x80 | (q->rd ? 0x01 : 0));   /* QR, opcode QUERY, RD echoed */
	out[3] = (uint8_t)(0x80 | (rcode & 0x0f));        /* RA */
	put16(out + 4, 1);
	memcpy(out + 12, msg + 12, qlen);
	o = 12 + qlen;
	if (rcode == DNS_RCODE_NOERROR && a && a->n_rec) {
		/* OPT goes last: keep its room while the records are written */
		fits = put_records(out, room - (q->edns_size ? 11 : 0), &o, a, ttl_cap);
		if (fits)
			put16(out + 6, (uint16_t)a->n_rec);
		else {
			o = 12 + qlen;
			out[2] |= 0x02;   /* TC: ask again over TCP */
		}
	}
	if (q->edns_size) {
		put_opt(out, room, &o);
		put16(out + 10, 1);
	}
	return o;
}

size_t reply_upstream_query(uint8_t *out, uint16_t id, const char *name)
{
	size_t o = dns_query_build(out, id, name);

	if (o == 0)
		return 0;
	put_opt(out, DNS_QUERY_MAX + 11, &o);
	put16(out + 10, 1);
	return o;
}
