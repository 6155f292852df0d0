#include "profiles/dns_wire.h"

#include <string.h>

#define T_A 1
#define T_CNAME 5
#define C_IN 1
#define CHAIN_MAX 8
#define JUMPS_MAX 32            /* compression pointers followed in one name */

static bool label_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

size_t dns_query_build(uint8_t *buf, uint16_t id, const char *name)
{
	size_t len = strlen(name), o = 12, label = 0;

	if (len == 0 || len > DNS_NAME_MAX)
		return 0;
	memset(buf, 0, 12);
	buf[0] = (uint8_t)(id >> 8);
	buf[1] = (uint8_t)id;
	buf[2] = 0x01;  /* RD */
	buf[5] = 1;     /* QDCOUNT */
	/* Labels: a length byte, then the label; o is where the next one goes. */
	for (size_t i = 0; i <= len; i++) {
		if (i == len || name[i] == '.') {
			if (label == 0 || label > 63)
				return 0;  /* an empty label (also a final dot) or a long one */
			buf[o - label - 1] = (uint8_t)label;
			label = 0;
			continue;
		}
		if (!label_char(name[i]))
			return 0;
		if (label == 0)
			o++;  /* room for this label's length byte */
		buf[o++] = (uint8_t)name[i];
		label++;
	}
	buf[o++] = 0;
	buf[o++] = 0;
	buf[o++] = T_A;
	buf[o++] = 0;
	buf[o++] = C_IN;
	return o;
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* The name at msg[*off], decompressed into out (lower case, dotted, no final
 * dot; "" for the root).  *off moves past the name where it stands.  False
 * for a name cut off, longer than 253 characters, with a label type other
 * than a plain length or a pointer, or with more than JUMPS_MAX pointers
 * (which also ends any loop). */
bool dns_read_name(const uint8_t *msg, size_t len, size_t *off, char out[DNS_NAME_MAX + 1])
{
	size_t p = *off, o = 0;
	int jumps = 0;
	bool jumped = false;

	for (;;) {
		uint8_t l;

		if (p >= len)
			return false;
		l = msg[p];
		if ((l & 0xc0) == 0xc0) {
			if (p + 1 >= len || ++jumps > JUMPS_MAX)
				return false;
			if (!jumped)
				*off = p + 2;
			jumped = true;
			p = (size_t)(l & 0x3f) << 8 | msg[p + 1];
			continue;
		}
		if (l & 0xc0)
			return false;  /* 0x40 and 0x80: extended label types */
		if (l == 0) {
			if (!jumped)
				*off = p + 1;
			out[o] = '\0';
			return true;
		}
		if (p + 1 + l > len || o + (o ? 1 : 0) + l > DNS_NAME_MAX)
			return false;
		if (o)
			out[o++] = '.';
		for (size_t i = 0; i < l; i++) {
			if (msg[p + 1 + i] == '.')
				return false;  /* a dot inside a label: no faithful text form */
			out[o++] = lower((char)msg[p + 1 + i]);
		}
		p += 1 + (size_t)l;
	}
}

static bool same_name(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (lower(*a) != lower(*b))
			return false;
	return *a == *b;
}

struct chain {
	char names[CHAIN_MAX][DNS_NAME_MAX + 1];
	size_t n;
};

static bool in_chain(const struct chain *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->names[i], name) == 0)
			return true;
	return false;
}

bool dns_read_rr(const uint8_t *msg, size_t len, size_t *off, struct dns_rr *r)
{
	if (!dns_read_name(msg, len, off, r->owner) || *off + 10 > len)
		return false;
	r->type = get16(msg + *off);
	r->class = get16(msg + *off + 2);
	r->ttl = (uint32_t)get16(msg + *off + 4) << 16 | get16(msg + *off + 6);
	r->data_len = get16(msg + *off + 8);
	r->data = *off + 10;
	if (r->data + r->data_len > len)
		return false;
	*off = r->data + r->data_len;
	return true;
}

/* The answer section in order, as glibc's getaddrinfo reads it (nss_dns's
 * gaih_getanswer_slice): one expected owner, the question's name at first;
 * a CNAME owned by it moves it on to the CNAME's target, and an A record
 * counts only when the expected owner holds it at that point.  So an A
 * record before the CNAME that leads to it, or owned by a name the chain
 * has left, counts for nothing, as in glibc.  A chain that comes back to a
 * name it passed (a loop) or runs longer than CHAIN_MAX makes the whole
 * answer "no answer": glibc then asks and decides itself.  False also for a
 * malformed record, wherever it stands. */
static bool walk_answers(const uint8_t *msg, size_t len, size_t start, unsigned count, struct chain *c,
			 uint32_t *addrs, size_t max, size_t *n)
{
	size_t off = start;

	for (unsigned i = 0; i < count; i++) {
		const char *expected = c->names[c->n - 1];
		struct dns_rr r;

		if (!dns_read_rr(msg, len, &off, &r))
			return false;
		if (r.class != C_IN || strcmp(r.owner, expected) != 0)
			continue;
		if (r.type == T_CNAME) {
			size_t d = r.data;
			char target[DNS_NAME_MAX + 1];

			if (!dns_read_name(msg, len, &d, target) || d != r.data + r.data_len)
				return false;
			if (in_chain(c, target) || c->n == CHAIN_MAX)
				return false;  /* a loop, or a chain too long: glibc's to judge */
			strcpy(c->names[c->n++], target);
		} else if (r.type == T_A && r.data_len == 4) {
			const uint8_t *a = msg + r.data;
			uint32_t v = (uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 | (uint32_t)a[2] << 8 | a[3];
			bool dup = false;

			for (size_t k = 0; k < *n; k++)
				dup = dup || addrs[k] == v;
			if (!dup && *n < max)
				addrs[(*n)++] = v;
		}
	}
	return true;
}

bool dns_answer_addrs(const uint8_t *msg, size_t len, uint16_t id, const char *name,
		      uint32_t *addrs, size_t max, size_t *n)
{
	struct chain c;
	char qname[DNS_NAME_MAX + 1];
	size_t off = 12;
	unsigned ancount;

	*n = 0;
	if (len < 12 || get16(msg) != id)
		return false;
	/* QR set, opcode 0, TC clear, RCODE 0; one question */
	if (!(msg[2] & 0x80) || (msg[2] & 0x78) || (msg[2] & 0x02) || (msg[3] & 0x0f) || get16(msg + 4) != 1)
		return false;
	if (!dns_read_name(msg, len, &off, qname) || off + 4 > len || !same_name(qname, name) ||
	    get16(msg + off) != T_A || get16(msg + off + 2) != C_IN)
		return false;
	off += 4;
	ancount = get16(msg + 6);
	c.n = 1;
	strcpy(c.names[0], qname);
	if (!walk_answers(msg, len, off, ancount, &c, addrs, max, n))
		*n = 0;  /* a malformed record, a loop: none of it counts */
	return *n > 0;
}
