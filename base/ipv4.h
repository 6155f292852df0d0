/* IPv4 addresses, prefixes and ranges: parsing, formatting and arithmetic.
 *
 * Every address here is a uint32_t in host byte order.  An inclusive range
 * (struct ipv4_range) is the one representation of "a destination block"
 * shared by the configuration, the policy, the range arithmetic and the
 * ruleset model; renderers turn it into prefixes, nft ranges or half-open
 * netlink interval elements. */
#ifndef CLI_SANDBOX_BASE_IPV4_H
#define CLI_SANDBOX_BASE_IPV4_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Room for "255.255.255.255" and its NUL. */
/* The widest prefix a range file or CLI_SANDBOX_ALLOW may open. */
#define CS_MIN_PREFIX_LEN 8
#define IPV4_TEXT_MAX 16

struct ipv4_range {
	uint32_t first;
	uint32_t last;
};

/* Strict dotted-quad IPv4: four decimal octets 0-255, no leading zeros.
 * Returns 0 and the address, or -1. */
int ipv4_parse_strict(const char *s, size_t len, uint32_t *addr);

/* A host made only of decimal and 0x-hex labels ("0x7f.1", "2130706433",
 * "192.0..2") is an attempt at an IPv4 address, which inet_aton would read
 * as one, so it gets the strict IPv4 rules, never the DNS-name rules. */
bool ipv4_looks_numeric(const char *h, size_t len);

/* Strict decimal port 1-65535 without leading zeros; 0 or -1. */
int port_parse_strict(const char *s, size_t len, uint16_t *port);

/* Strict "a.b.c.d/len": a dotted quad as ipv4_parse_strict takes it, and a
 * decimal length 0-32 without leading zeros.  Host bits may be set: *addr is
 * returned as written and *host_bits tells whether masking changes it.
 * 0, or -1 on any syntax error. */
int ipv4_prefix_parse(const char *s, size_t len, uint32_t *addr, unsigned *plen,
		      bool *host_bits);

/* The dotted quad of addr in buf; returns buf. */
const char *ipv4_to_string(uint32_t addr, char buf[IPV4_TEXT_MAX]);

/* The inclusive range of a prefix; len 0..32. */
struct ipv4_range ipv4_prefix_range(uint32_t addr, unsigned len);

/* Whether r is exactly one prefix (size a power of two, first aligned to
 * it); *len is then its length. */
bool ipv4_range_is_prefix(struct ipv4_range r, uint8_t *len);

/* Sorts ranges and merges overlapping and adjacent ones in place; returns the
 * new count (the kernel refuses overlapping interval elements). */
size_t ipv4_ranges_normalise(struct ipv4_range *r, size_t n);

/* The destinations no profile may allow, as one table.  Some of them are
 * still real nameservers (Docker's 127.0.0.11, systemd-resolved's
 * 127.0.0.53, the 169.254.169.253 of some clouds): nameserver_ok marks those
 * that resolv.conf may name. */
struct ipv4_forbidden_block {
	struct ipv4_range range;
	const char *what;      /* "loopback 127.0.0.0/8" */
	bool nameserver_ok;
};

extern const struct ipv4_forbidden_block ipv4_forbidden_blocks[];
extern const size_t ipv4_n_forbidden_blocks;

/* What addr is when no profile may allow it ("loopback 127.0.0.0/8"), or
 * NULL when it is an acceptable destination. */
const char *ipv4_forbidden_destination(uint32_t addr);

/* The same for a nameserver named in resolv.conf: loopback and link-local
 * are acceptable there. */
const char *ipv4_forbidden_nameserver(uint32_t addr);

/* What addr is when it is a private (RFC 1918) or shared (RFC 6598)
 * address ("private 10.0.0.0/8"), or NULL.  The profiles allow these
 * (gateways live there); the pinning resolver pins them only for a name
 * declared internal, so a public name cannot rebind to the local network. */
const char *ipv4_private_address(uint32_t addr);

/* The first forbidden block r overlaps, or NULL. */
const char *ipv4_range_forbidden_overlap(struct ipv4_range r);

#endif
