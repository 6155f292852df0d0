#include "base/model_url.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define VAR "TASK_AGENT_MODEL_BASE_URL"
#define FORM "http(s)://A.B.C.D[:PORT][/PATH]"

int dns_name_valid(const char *s, size_t len)
{
	size_t label = 0;
	bool all_numeric = true;

	if (len == 0 || len > 253 || s[len - 1] == '.')
		return -1;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (c == '.') {
			if (label == 0 || s[i - 1] == '-')
				return -1;
			label = 0;
			continue;
		}
		if (!isalnum((unsigned char)c) && c != '-')
			return -1;
		if (c == '-' && label == 0)
			return -1;
		if (!isdigit((unsigned char)c))
			all_numeric = false;
		if (++label > 63)
			return -1;
	}
	if (s[len - 1] == '-' || all_numeric)
		return -1;
	return 0;
}

/* Characters that are never acceptable anywhere in the URL, each with its own
 * message: they are how URL-confusion attacks smuggle a second host. */
static int check_characters(const char *s, struct cs_error *err)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		unsigned char c = *p;

		if (c >= 0x80)
			return cs_fail(err, CS_EXIT_CONFIG, VAR " contains non-ASCII characters; write the URL in plain ASCII as " FORM);
		if (c == ' ' || (c >= '\t' && c <= '\r'))
			return cs_fail(err, CS_EXIT_CONFIG, VAR " contains whitespace; remove it (form: " FORM ")");
		if (c < 0x20 || c == 0x7f)
			return cs_fail(err, CS_EXIT_CONFIG, VAR " contains a control character (0x%02x); remove it", c);
		if (c == '\\')
			return cs_fail(err, CS_EXIT_CONFIG, VAR " contains a backslash; use only '/' (form: " FORM ")");
		if (c == '%')
			return cs_fail(err, CS_EXIT_CONFIG, VAR " contains percent-encoding ('%%'); write the URL without escapes");
		if (c == '@')
			return cs_fail(err, CS_EXIT_CONFIG, VAR " contains userinfo ('@'); remove the user part, credentials belong in the CLI's own key variable");
		if (c == '?')
			return cs_fail(err, CS_EXIT_CONFIG, VAR " contains a query ('?'); remove it (form: " FORM ")");
		if (c == '#')
			return cs_fail(err, CS_EXIT_CONFIG, VAR " contains a fragment ('#'); remove it (form: " FORM ")");
	}
	return 0;
}

static int parse_scheme(const char *s, const char **rest, bool *https, struct cs_error *err)
{
	const char *sep = strstr(s, "://");
	size_t n;

	if (!sep)
		return cs_fail(err, CS_EXIT_CONFIG, VAR " has no scheme; write it as " FORM);
	n = (size_t)(sep - s);
	if (n == 4 && memcmp(s, "http", 4) == 0) {
		*https = false;
	} else if (n == 5 && memcmp(s, "https", 5) == 0) {
		*https = true;
	} else if ((n == 4 && strncasecmp(s, "http", 4) == 0) ||
		   (n == 5 && strncasecmp(s, "https", 5) == 0)) {
		return cs_fail(err, CS_EXIT_CONFIG, VAR " scheme must be lower-case; write http:// or https://");
	} else {
		return cs_fail(err, CS_EXIT_CONFIG, VAR " scheme '%.*s' is not allowed; use http:// or https://",
			       (int)(n > 16 ? 16 : n), s);
	}
	*rest = sep + 3;
	return 0;
}

static int parse_host(const char *h, size_t len, bool allow_dns, struct model_url *u,
		      struct cs_error *err)
{
	const char *why;

	if (len == 0)
		return cs_fail(err, CS_EXIT_CONFIG, VAR " has no host; write it as " FORM);
	if (h[0] == '[' || memchr(h, ':', len))
		return cs_fail(err, CS_EXIT_CONFIG, VAR " has an IPv6 literal; IPv6 is dropped by the firewall, use the gateway's IPv4 address");
	if (h[len - 1] == '.')
		return cs_fail(err, CS_EXIT_CONFIG, VAR " host ends with a dot; remove the trailing dot");
	if (len >= MODEL_HOST_MAX)
		return cs_fail(err, CS_EXIT_CONFIG, VAR " host is too long");
	memcpy(u->host, h, len);
	u->host[len] = '\0';
	if (ipv4_looks_numeric(h, len)) {
		if (ipv4_parse_strict(h, len, &u->addr))
			return cs_fail(err, CS_EXIT_CONFIG, VAR " host '%s' is not a dotted-quad IPv4 address; write four decimal octets 0-255 without leading zeros (no hex, octal or short forms)", u->host);
		why = ipv4_forbidden_destination(u->addr);
		if (why)
			return cs_fail(err, CS_EXIT_CONFIG, VAR " points at %s (%s), which is never a model gateway; use the gateway's routable IPv4 address", why, u->host);
		u->host_is_ipv4 = true;
		return 0;
	}
	if (!allow_dns)
		return cs_fail(err, CS_EXIT_CONFIG, VAR " host '%s' is a DNS name; the managed profile pins one address, so write the gateway's IPv4 address (A.B.C.D)", u->host);
	if (dns_name_valid(h, len))
		return cs_fail(err, CS_EXIT_CONFIG, VAR " host '%s' is not a valid DNS name; use letters, digits, hyphens and dots", u->host);
	for (char *p = u->host; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return 0;
}

static int parse_path(const char *p, struct model_url *u, struct cs_error *err)
{
	const char *seg = p;

	for (const char *c = p; *c; c++) {
		if (!isalnum((unsigned char)*c) && !strchr("-._~/", *c))
			return cs_fail(err, CS_EXIT_CONFIG, VAR " path contains '%c'; only letters, digits and - . _ ~ / are allowed", *c);
	}
	/* A ".." segment could climb out of the gateway's prefix on a proxy. */
	while (*seg) {
		const char *end = strchr(seg + 1, '/');
		size_t n = end ? (size_t)(end - seg) : strlen(seg);

		if (n == 3 && memcmp(seg, "/..", 3) == 0)
			return cs_fail(err, CS_EXIT_CONFIG, VAR " path has a '..' segment; remove it");
		seg += n;
	}
	snprintf(u->path, sizeof(u->path), "%s", p);
	return 0;
}

int model_url_parse(const char *s, bool allow_dns_name, struct model_url *u,
		    struct cs_error *err)
{
	const char *authority = NULL, *slash, *colon;
	size_t alen;

	memset(u, 0, sizeof(*u));
	if (!s || !*s)
		return cs_fail(err, CS_EXIT_CONFIG, VAR " is empty; set it to the model gateway as " FORM);
	if (strlen(s) >= MODEL_URL_MAX)
		return cs_fail(err, CS_EXIT_CONFIG, VAR " is longer than %d characters; shorten it", MODEL_URL_MAX - 1);
	if (check_characters(s, err) || parse_scheme(s, &authority, &u->https, err))
		return -1;
	snprintf(u->text, sizeof(u->text), "%s", s);

	slash = strchr(authority, '/');
	alen = slash ? (size_t)(slash - authority) : strlen(authority);
	colon = memchr(authority, ':', alen);
	/* A host with a dot before its first colon (an IPv4 address or a name)
	 * followed by two ports is a port mistake, not IPv6. */
	if (colon && authority[0] != '[' && memchr(authority, '.', (size_t)(colon - authority)) &&
	    memchr(colon + 1, ':', alen - (size_t)(colon - authority) - 1))
		return cs_fail(err, CS_EXIT_CONFIG, VAR " has more than one ':port' after the host ('%.*s'); write one decimal port 1-65535",
			       (int)(alen > 40 ? 40 : alen), authority);
	/* More than one colon, or a bracket: an IPv6 literal; let the host say so. */
	if (colon && (memchr(colon + 1, ':', alen - (size_t)(colon - authority) - 1) || authority[0] == '['))
		colon = NULL;
	if (parse_host(authority, colon ? (size_t)(colon - authority) : alen, allow_dns_name, u, err))
		return -1;
	if (colon) {
		const char *ps = colon + 1;
		size_t plen = alen - (size_t)(ps - authority);

		if (plen == 0)
			return cs_fail(err, CS_EXIT_CONFIG, VAR " has an empty port after ':'; write a port 1-65535 or drop the ':'");
		if (port_parse_strict(ps, plen, &u->port))
			return cs_fail(err, CS_EXIT_CONFIG, VAR " port '%.*s' is invalid; write a decimal port 1-65535 without leading zeros",
				       (int)(plen > 12 ? 12 : plen), ps);
		u->port_explicit = true;
	} else {
		u->port = u->https ? 443 : 80;
	}
	if (u->port == 53)
		return cs_fail(err, CS_EXIT_CONFIG, VAR " uses port 53, which the firewall reserves for DNS and blocks everywhere; serve the gateway on another port");
	return slash ? parse_path(slash, u, err) : 0;
}
