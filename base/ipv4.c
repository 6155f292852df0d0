#include "base/ipv4.h"

#include <ctype.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

int ipv4_parse_strict(const char *s, size_t len, uint32_t *addr)
{
	uint32_t value = 0;
	size_t i = 0;

	for (int part = 0; part < 4; part++) {
		size_t start = i;
		unsigned octet = 0;

		if (part > 0) {
			if (i >= len || s[i] != '.')
				return -1;
			start = ++i;
		}
		while (i < len && s[i] >= '0' && s[i] <= '9' && i - start < 3)
			octet = octet * 10 + (unsigned)(s[i++] - '0');
		if (i == start || octet > 255)
			return -1;
		if (s[start] == '0' && i - start > 1)  /* leading zero: octal in inet_aton */
			return -1;
		value = value << 8 | octet;
	}
	if (i != len)
		return -1;
	*addr = value;
	return 0;
}

bool ipv4_looks_numeric(const char *h, size_t len)
{
	size_t i = 0;

	while (i < len) {
		size_t start = i;

		if (i + 1 < len && h[i] == '0' && (h[i + 1] == 'x' || h[i + 1] == 'X')) {
			i += 2;
			while (i < len && isxdigit((unsigned char)h[i]))
				i++;
		} else {
			while (i < len && isdigit((unsigned char)h[i]))
				i++;
		}
		if (i == start && (i == len || h[i] != '.'))
			return false;  /* "192.0..2" stays an IPv4 attempt: an empty label */
		if (i < len && h[i] != '.')
			return false;
		if (i < len)
			i++;
	}
	return true;
}

int port_parse_strict(const char *s, size_t len, uint16_t *port)
{
	unsigned long v = 0;

	if (len == 0 || len > 5 || s[0] == '0')
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	if (v < 1 || v > 65535)
		return -1;
	*port = (uint16_t)v;
	return 0;
}

int ipv4_prefix_parse(const char *s, size_t len, uint32_t *addr, unsigned *plen,
		      bool *host_bits)
{
	const char *slash = memchr(s, '/', len);
	size_t alen, llen;
	unsigned v = 0;

	if (!slash)
		return -1;
	alen = (size_t)(slash - s);
	llen = len - alen - 1;
	if (ipv4_parse_strict(s, alen, addr))
		return -1;
	if (llen == 0 || llen > 2 || (slash[1] == '0' && llen > 1))
		return -1;
	for (size_t i = 1; i <= llen; i++) {
		if (slash[i] < '0' || slash[i] > '9')
			return -1;
		v = v * 10 + (unsigned)(slash[i] - '0');
	}
	if (v > 32)
		return -1;
	*plen = v;
	*host_bits = ipv4_prefix_range(*addr, v).first != *addr;
	return 0;
}

/* By hand: the renderers print every set element this way, and snprintf
 * costs some 500 instructions a call. */
const char *ipv4_to_string(uint32_t a, char buf[IPV4_TEXT_MAX])
{
	char *p = buf;

	for (int shift = 24; shift >= 0; shift -= 8) {
		unsigned o = (a >> shift) & 255;

		if (o >= 100)
			*p++ = (char)('0' + o / 100);
		if (o >= 10)
			*p++ = (char)('0' + o / 10 % 10);
		*p++ = (char)('0' + o % 10);
		*p++ = shift ? '.' : '\0';
	}
	return buf;
}

struct ipv4_range ipv4_prefix_range(uint32_t addr, unsigned len)
{
	uint32_t host = len >= 32 ? 0 : UINT32_MAX >> len;

	return (struct ipv4_range){ addr & ~host, (addr & ~host) | host };
}

bool ipv4_range_is_prefix(struct ipv4_range r, uint8_t *len)
{
	uint32_t size = r.last - r.first;  /* size - 1 */

	if (r.first > r.last || (size & (size + 1)) != 0 || (r.first & size) != 0)
		return false;
	*len = (uint8_t)(32 - __builtin_popcount(size));
	return true;
}

static int cmp_range(const void *a, const void *b)
{
	const struct ipv4_range *x = a, *y = b;

	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	if (x->last != y->last)
		return x->last < y->last ? -1 : 1;
	return 0;
}

/* Sorts by first address alone, in four byte-wide passes (least significant
 * first, each stable): ranges with the same first address may end up in any
 * order of their last, which the merge below does not mind.  Large provider
 * files have tens of thousands of ranges; this is several times faster than
 * qsort's comparisons.  -1 without memory (the caller then uses qsort). */
static int radix_sort_by_first(struct ipv4_range *r, size_t n)
{
	struct ipv4_range *tmp = malloc(n * sizeof(*tmp)), *src = r, *dst = tmp;

	if (!tmp)
		return -1;
	for (unsigned shift = 0; shift < 32; shift += 8) {
		size_t count[256] = { 0 }, pos = 0;

		for (size_t i = 0; i < n; i++)
			count[src[i].first >> shift & 0xff]++;
		if (count[src[0].first >> shift & 0xff] == n)
			continue;  /* every range has this byte: the pass would change nothing */
		for (size_t d = 0; d < 256; d++) {
			size_t c = count[d];

			count[d] = pos;
			pos += c;
		}
		for (size_t i = 0; i < n; i++)
			dst[count[src[i].first >> shift & 0xff]++] = src[i];
		src = dst;
		dst = src == r ? tmp : r;
	}
	if (src != r)
		memcpy(r, src, n * sizeof(*r));
	free(tmp);
	return 0;
}

size_t ipv4_ranges_normalise(struct ipv4_range *r, size_t n)
{
	size_t out = 0;

	bool sorted = true;

	if (n == 0)
		return 0;
	/* Lists are normalised again at every stage (loader, subtraction,
	 * model): a sorted one costs one pass, not a sort. */
	for (size_t i = 1; i < n && sorted; i++)
		sorted = cmp_range(&r[i - 1], &r[i]) <= 0;
	if (!sorted && (n < 64 || radix_sort_by_first(r, n) != 0))
		qsort(r, n, sizeof(*r), cmp_range);
	for (size_t i = 1; i < n; i++) {
		struct ipv4_range *cur = &r[out];
		/* Overlapping or adjacent (cur->last + 1 == next.first) merge. */
		if (cur->last == UINT32_MAX || r[i].first <= cur->last + 1) {
			if (r[i].last > cur->last)
				cur->last = r[i].last;
		} else {
			r[++out] = r[i];
		}
	}
	return out + 1;
}

const struct ipv4_forbidden_block ipv4_forbidden_blocks[] = {
	{ { 0x00000000u, 0x00ffffffu }, "unspecified 0.0.0.0/8", false },
	{ { 0x7f000000u, 0x7fffffffu }, "loopback 127.0.0.0/8", true },
	{ { 0xa9fe0000u, 0xa9feffffu }, "link-local 169.254.0.0/16 (cloud metadata)", true },
	{ { 0xe0000000u, 0xefffffffu }, "multicast 224.0.0.0/4", false },
	{ { 0xf0000000u, 0xffffffffu }, "reserved 240.0.0.0/4 (broadcast included)", false },
};
const size_t ipv4_n_forbidden_blocks = sizeof(ipv4_forbidden_blocks) / sizeof(ipv4_forbidden_blocks[0]);

const char *ipv4_range_forbidden_overlap(struct ipv4_range r)
{
	for (size_t i = 0; i < ipv4_n_forbidden_blocks; i++)
		if (r.first <= ipv4_forbidden_blocks[i].range.last && ipv4_forbidden_blocks[i].range.first <= r.last)
			return ipv4_forbidden_blocks[i].what;
	return NULL;
}

const char *ipv4_forbidden_destination(uint32_t addr)
{
	return ipv4_range_forbidden_overlap((struct ipv4_range){ addr, addr });
}

const char *ipv4_forbidden_nameserver(uint32_t addr)
{
	for (size_t i = 0; i < ipv4_n_forbidden_blocks; i++)
		if (!ipv4_forbidden_blocks[i].nameserver_ok && addr >= ipv4_forbidden_blocks[i].range.first &&
		    addr <= ipv4_forbidden_blocks[i].range.last)
			return ipv4_forbidden_blocks[i].what;
	return NULL;
}

const char *ipv4_private_address(uint32_t addr)
{
	static const struct {
		struct ipv4_range range;
		const char *what;
	} private[] = {
		{ { 0x0a000000u, 0x0affffffu }, "private 10.0.0.0/8" },
		{ { 0x64400000u, 0x647fffffu }, "shared 100.64.0.0/10" },
		{ { 0xac100000u, 0xac1fffffu }, "private 172.16.0.0/12" },
		{ { 0xc0a80000u, 0xc0a8ffffu }, "private 192.168.0.0/16" },
	};

	for (size_t i = 0; i < sizeof(private) / sizeof(private[0]); i++)
		if (addr >= private[i].range.first && addr <= private[i].range.last)
			return private[i].what;
	return NULL;
}
