#include "resolver/answer.h"

#include <string.h>
#include <strings.h>

#include "base/ipv4.h"
#include "resolver/query.h"

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void verdict(struct answer *a, enum answer_kind k, const char *why)
{
	a->kind = k;
	a->why = why;
	if (k != ANSWER_PIN) {
		a->n_rec = 0;
		a->n_addrs = 0;
	}
}

static bool in_chain(const struct answer *a, const char *name)
{
	for (size_t i = 0; i < a->n_chain; i++)
		if (strcmp(a->chain[i], name) == 0)
			return true;
	return false;
}

static void keep(struct answer *a, uint16_t type, uint32_t addr, uint32_t ttl)
{
	struct answer_record *r = &a->rec[a->n_rec++];

	r->type = type;
	r->owner = (uint8_t)(a->n_chain - 1);
	r->addr = addr;
	r->ttl = ttl;
	if (ttl < a->ttl_min)
		a->ttl_min = ttl;
}

/* One A record of the chain: counted, judged, kept.  False with the
 * verdict set when it makes the whole answer a SERVFAIL. */
static bool take_a(struct answer *a, const uint8_t *msg, const struct dns_rr *r, bool internal)
{
	const uint8_t *d = msg + r->data;
	uint32_t v;
	bool dup = false;

	if (r->data_len != 4) {
		verdict(a, ANSWER_SERVFAIL, "an A record whose data is not 4 bytes");
		return false;
	}
	v = (uint32_t)d[0] << 24 | (uint32_t)d[1] << 16 | (uint32_t)d[2] << 8 | d[3];
	if (ipv4_forbidden_destination(v)) {
		verdict(a, ANSWER_SERVFAIL, "a forbidden address (unspecified, loopback, link-local, multicast or reserved)");
		return false;
	}
	if (!internal && ipv4_private_address(v)) {
		verdict(a, ANSWER_SERVFAIL, "a private address for a name not declared internal");
		return false;
	}
	for (size_t k = 0; k < a->n_addrs; k++)
		dup = dup || a->addrs[k] == v;
	if (!dup) {
		if (a->n_addrs == ANSWER_A_MAX) {
			verdict(a, ANSWER_SERVFAIL, "more than 32 A records");
			return false;
		}
		a->addrs[a->n_addrs++] = v;
	}
	if (a->n_rec == ANSWER_RECORDS_MAX) {
		verdict(a, ANSWER_SERVFAIL, "more than 32 A records");
		return false;
	}
	keep(a, DNS_T_A, v, r->ttl);
	return true;
}

static bool walk(struct answer *a, const uint8_t *msg, size_t len, size_t off, unsigned count, bool internal)
{
	for (unsigned i = 0; i < count; i++) {
		struct dns_rr r;

		if (!dns_read_rr(msg, len, &off, &r)) {
			verdict(a, ANSWER_SERVFAIL, "an answer record that cannot be read (cut off, or a compression loop)");
			return false;
		}
		if (r.class != DNS_C_IN || strcmp(r.owner, a->chain[a->n_chain - 1]) != 0)
			continue;  /* not on the chain at this point: dropped */
		if (r.type == DNS_T_CNAME) {
			size_t d = r.data;
			char target[DNS_NAME_MAX + 1];
			uint8_t probe[DNS_QUERY_MAX];

			/* the target must be a plain host name (the query builder's
			 * rule): a label holding a dot or a byte outside
			 * letters, digits, '-' and '_' has no faithful text form */
			if (!dns_read_name(msg, len, &d, target) || d != r.data + r.data_len ||
			    dns_query_build(probe, 0, target) == 0) {
				verdict(a, ANSWER_SERVFAIL, "a CNAME whose target is not a plain host name");
				return false;
			}
			if (in_chain(a, target) || a->n_chain == ANSWER_CHAIN_MAX) {
				verdict(a, ANSWER_SERVFAIL, "a CNAME loop or a chain longer than 8 names");
				return false;
			}
			keep(a, DNS_T_CNAME, 0, r.ttl);
			strcpy(a->chain[a->n_chain++], target);
		} else if (r.type == DNS_T_A && !take_a(a, msg, &r, internal)) {
			return false;
		}
	}
	return true;
}

void answer_judge(const uint8_t *msg, size_t len, uint16_t id, const char *qname, bool internal,
		  struct answer *a)
{
	char name[DNS_NAME_MAX + 1];
	size_t off = 12;
	unsigned rcode;

	memset(a, 0, sizeof(*a));
	a->ttl_min = UINT32_MAX;
	if (len < 12 || get16(msg) != id || !(msg[2] & 0x80))
		return verdict(a, ANSWER_IGNORE, "not an answer to this query (id)");
	if (get16(msg + 4) != 1 || !dns_read_name(msg, len, &off, name) || off + 4 > len ||
	    strcasecmp(name, qname) != 0 || get16(msg + off) != DNS_T_A || get16(msg + off + 2) != DNS_C_IN)
		return verdict(a, ANSWER_IGNORE, "not an answer to this query (question)");
	off += 4;
	if (msg[2] & 0x78)
		return verdict(a, ANSWER_SERVFAIL, "an answer with another opcode");
	if (msg[2] & 0x02)
		return verdict(a, ANSWER_SERVFAIL, "a truncated answer");
	rcode = msg[3] & 0x0f;
	if (rcode == DNS_RCODE_NXDOMAIN)
		return verdict(a, ANSWER_NXDOMAIN, NULL);
	if (rcode != DNS_RCODE_NOERROR)
		return verdict(a, ANSWER_SERVFAIL, "the upstream answered with an error");
	strcpy(a->chain[0], qname);
	a->n_chain = 1;
	if (!walk(a, msg, len, off, get16(msg + 6), internal))
		return;
	if (a->n_addrs == 0)
		return verdict(a, ANSWER_NODATA, NULL);
	verdict(a, ANSWER_PIN, NULL);
}

uint32_t answer_ttl(uint32_t upstream_ttl, uint32_t timeout_s, uint32_t margin_s)
{
	uint32_t cap = timeout_s > margin_s ? timeout_s - margin_s : 0;

	return upstream_ttl < cap ? upstream_ttl : cap;
}

const char *answer_kind_name(enum answer_kind k)
{
	static const char *const names[] = { "ignore", "SERVFAIL", "NXDOMAIN", "NODATA", "pin" };

	return (size_t)k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}
