/* DNS messages for the resolver child's fast path (dns_stub.h): one A query
 * per name, and the IPv4 addresses a positive answer gives for it.  Pure
 * functions on bytes; the answer comes from the network, so every length
 * and pointer in it is checked, and anything but a clean positive answer is
 * "no answer" (the child then asks glibc, as before). */
#ifndef CLI_SANDBOX_DNS_WIRE_H
#define CLI_SANDBOX_DNS_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DNS_NAME_MAX 253        /* a name in text, without the final dot */
#define DNS_QUERY_MAX (12 + DNS_NAME_MAX + 2 + 4)

/* A query for name's A records (class IN, recursion desired) with this id,
 * into buf (DNS_QUERY_MAX bytes).  Its length, or 0 when name is not a
 * plain host name (labels of 1-63 letters, digits, '-' or '_', at most 253
 * characters, no final dot): such a name is left to glibc. */
size_t dns_query_build(uint8_t *buf, uint16_t id, const char *name);

/* Reads msg as the answer to the query with this id for name.  True only
 * when it is one: a response (QR), standard query, not truncated, NOERROR,
 * the same one question (name compared without case, type A, class IN), and
 * at least one A record of class IN that counts as glibc counts it: read in
 * order, owned by name, or by the target of a CNAME chain from name whose
 * records came before it (at most 8 names, no loop: a loop or a longer
 * chain is "no answer", for glibc to judge).  Then the distinct addresses,
 * host order, at most max, are in addrs and their count in *n.  Every other
 * record is ignored. */
bool dns_answer_addrs(const uint8_t *msg, size_t len, uint16_t id, const char *name,
		      uint32_t *addrs, size_t max, size_t *n);

/* The wire primitives, shared with the pinning resolver (resolver/).
 *
 * The name at msg[*off], decompressed into out (lower case, dotted, no final
 * dot; "" for the root).  *off moves past the name where it stands.  False
 * for a name cut off, longer than 253 characters, with a label type other
 * than a plain length or a pointer, with a dot inside a label (its text
 * would read as another name), or with more than 32 pointers (which also
 * ends any loop). */
bool dns_read_name(const uint8_t *msg, size_t len, size_t *off, char out[DNS_NAME_MAX + 1]);

/* One resource record at *off: its owner, type, class, TTL, and where its
 * data stands; *off moves past it.  False when any of it is cut off. */
struct dns_rr {
	char owner[DNS_NAME_MAX + 1];
	uint16_t type, class;
	uint32_t ttl;
	size_t data, data_len;
};
bool dns_read_rr(const uint8_t *msg, size_t len, size_t *off, struct dns_rr *r);

#endif
