#include "base/allow.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#define VAR "CLI_SANDBOX_ALLOW"
#define FORM "name[:port] or a.b.c.d[/len][:port]"

/* Entries are quoted in messages at most this long. */
#define Q(n) (int)((n) > 60 ? 60 : (n))

static int check_chars(const char *e, size_t len, struct cs_error *err)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)e[i];

		if (c >= 0x80)
			return cs_fail(err, CS_EXIT_CONFIG, VAR " entry '%.*s' contains non-ASCII characters; write host names in ASCII (punycode)", Q(len), e);
		if (isspace(c))
			return cs_fail(err, CS_EXIT_CONFIG, VAR " entry '%.*s' contains whitespace; separate entries with ',' only", Q(len), e);
		if (c < 0x20 || c == 0x7f)
			return cs_fail(err, CS_EXIT_CONFIG, VAR " entry '%.*s' contains a control character (0x%02x); remove it", Q(len), e, c);
		if (!isalnum(c) && !strchr(".-:/[]", c))
			return cs_fail(err, CS_EXIT_CONFIG, VAR " entry '%.*s' contains '%c'; write each entry as " FORM, Q(len), e, c);
	}
	return 0;
}

static int parse_prefix(const char *e, size_t elen, const char *h, size_t hlen,
			struct allow_entry *a, struct cs_error *err)
{
	uint32_t addr;
	unsigned plen;
	bool host_bits;
	char net[IPV4_TEXT_MAX];
	const char *why;
	struct ipv4_range r;

	if (ipv4_prefix_parse(h, hlen, &addr, &plen, &host_bits))
		return cs_fail(err, CS_EXIT_CONFIG, VAR " entry '%.*s' is not a valid a.b.c.d/len; write a dotted quad without leading zeros and a length %d-32 without leading zeros",
			       Q(elen), e, CS_MIN_PREFIX_LEN);
	if (plen < CS_MIN_PREFIX_LEN)
		return cs_fail(err, CS_EXIT_CONFIG, VAR " entry '%.*s' is wider than /%d; allow narrower prefixes (or use SKIP_EGRESS_FIREWALL=true for no firewall at all)",
			       Q(elen), e, CS_MIN_PREFIX_LEN);
	r = ipv4_prefix_range(addr, plen);
	if (host_bits) {
		return cs_fail(err, CS_EXIT_CONFIG, VAR " entry '%.*s' has host bits set; write the network address (%s/%u) or a /32",
			       Q(elen), e, ipv4_to_string(r.first, net), plen);
	}
	why = ipv4_range_forbidden_overlap(r);
	if (why)
		return cs_fail(err, CS_EXIT_CONFIG, VAR " entry '%.*s' covers %s, which is never allowed; remove it or narrow it",
			       Q(elen), e, why);
	a->range = r;
	return 0;
}

static int parse_host(const char *e, size_t elen, const char *h, size_t hlen,
		      struct allow_entry *a, struct cs_error *err)
{
	uint32_t addr;
	const char *why;

	if (hlen == 0)
		return cs_fail(err, CS_EXIT_CONFIG, VAR " entry '%.*s' has no host; write it as " FORM, Q(elen), e);
	if (memchr(h, '/', hlen))
		return parse_prefix(e, elen, h, hlen, a, err);
	if (ipv4_looks_numeric(h, hlen)) {
		if (ipv4_parse_strict(h, hlen, &addr))
			return cs_fail(err, CS_EXIT_CONFIG, VAR " entry '%.*s' is not a dotted-quad IPv4 address; write four decimal octets 0-255 without leading zeros (no hex, octal or short forms)",
				       Q(elen), e);
		why = ipv4_forbidden_destination(addr);
		if (why)
			return cs_fail(err, CS_EXIT_CONFIG, VAR " entry '%.*s' is in %s, which is never allowed; remove it",
				       Q(elen), e, why);
		a->range = (struct ipv4_range){ addr, addr };
		return 0;
	}
	if (h[hlen - 1] == '.')
		return cs_fail(err, CS_EXIT_CONFIG, VAR " entry '%.*s' ends with a dot; remove the trailing dot", Q(elen), e);
	if (hlen >= sizeof(a->name) || dns_name_valid(h, hlen))
		return cs_fail(err, CS_EXIT_CONFIG, VAR " entry '%.*s' is not a valid DNS name; use letters, digits, hyphens and dots (labels of 1-63, at most 253 characters)",
			       Q(elen), e);
	a->is_name = true;
	for (size_t i = 0; i < hlen; i++)
		a->name[i] = (char)tolower((unsigned char)h[i]);
	a->name[hlen] = '\0';
	return 0;
}

static int parse_entry(const char *e, size_t len, struct allow_entry *a, struct cs_error *err)
{
	const char *colon = memchr(e, ':', len);
	size_t hlen = colon ? (size_t)(colon - e) : len;

	memset(a, 0, sizeof(*a));
	if (check_chars(e, len, err))
		return -1;
	if (colon && len - hlen >= 3 && memcmp(colon, "://", 3) == 0)
		return cs_fail(err, CS_EXIT_CONFIG, VAR " entry '%.*s' is a URL; write only its host and port, as " FORM, Q(len), e);
	if (memchr(e, '[', len) || memchr(e, ']', len) ||
	    (colon && memchr(colon + 1, ':', len - hlen - 1)))
		return cs_fail(err, CS_EXIT_CONFIG, VAR " entry '%.*s' is an IPv6 address or has more than one ':'; IPv6 stays dropped, write " FORM, Q(len), e);
	if (parse_host(e, len, e, hlen, a, err))
		return -1;
	a->port = 443;
	if (colon) {
		size_t plen = len - hlen - 1;

		if (plen == 0)
			return cs_fail(err, CS_EXIT_CONFIG, VAR " entry '%.*s' has an empty port after ':'; write a port 1-65535 or drop the ':' for 443", Q(len), e);
		if (port_parse_strict(colon + 1, plen, &a->port))
			return cs_fail(err, CS_EXIT_CONFIG, VAR " entry '%.*s' has an invalid port; write a decimal port 1-65535 without leading zeros", Q(len), e);
		if (a->port == 53)
			return cs_fail(err, CS_EXIT_CONFIG, VAR " entry '%.*s' uses port 53, which the firewall reserves for DNS to the resolv.conf nameservers; remove it", Q(len), e);
	}
	snprintf(a->text, sizeof(a->text), "%.*s%s", len < sizeof(a->text) ? (int)len : (int)sizeof(a->text) - 4,
		 e, len < sizeof(a->text) ? "" : "...");
	return 0;
}

int allow_parse(const char *s, struct allow_entry **out, size_t *n, struct cs_error *err)
{
	size_t count = 1, i = 0;
	struct allow_entry *v;
	const char *p = s;

	*out = NULL;
	*n = 0;
	if (!*s)
		return cs_fail(err, CS_EXIT_CONFIG, VAR " is empty; list entries as " FORM ", comma-separated, or unset it");
	for (const char *c = s; *c; c++)
		count += *c == ',';
	v = calloc(count, sizeof(*v));
	if (!v)
		return cs_fail(err, CS_EXIT_OSERR, "out of memory parsing " VAR);
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (len == 0) {
			cs_fail(err, CS_EXIT_CONFIG, VAR " entry %zu is empty; remove the extra ','", i + 1);
			goto fail;
		}
		if (parse_entry(p, len, &v[i], err))
			goto fail;
		i++;
		if (!comma)
			break;
		p = comma + 1;
	}
	*out = v;
	*n = i;
	return 0;
fail:
	free(v);
	return -1;
}
