#include "profiles/netinfo.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/ipv4.h"

#define RTF_UP_BIT 0x1
#define RTF_GATEWAY_BIT 0x2

const char *resolv_conf_line_nameserver(const char *line, size_t *len)
{
	const char *p = line;

	if (strncmp(p, "nameserver", 10) != 0 || (p[10] != ' ' && p[10] != '\t'))
		return NULL;
	p += 10;
	p += strspn(p, " \t");
	*len = strcspn(p, " \t\r\n#;");
	return *len ? p : NULL;
}

int resolv_conf_nameservers(const char *path, uint32_t *addrs, size_t max, struct cs_error *err)
{
	FILE *f = fopen(path, "re");
	char line[512];
	size_t n = 0, lineno = 0, extra = 0;

	if (!f && errno == ENOENT) {
		cs_warn("%s does not exist: no nameserver is allowed, so DNS stays blocked", path);
		return 0;
	}
	if (!f)
		return cs_fail(err, CS_EXIT_CONFIG, "cannot read %s: %s; make it readable", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		const char *tok;
		size_t len;
		uint32_t a;
		const char *why;
		bool dup = false;

		lineno++;
		if (!strchr(line, '\n')) {  /* overlong: drop the rest of the line */
			int c;

			while ((c = getc(f)) != EOF && c != '\n')
				;
		}
		if (!(tok = resolv_conf_line_nameserver(line, &len)))
			continue;
		if (memchr(tok, ':', len)) {
			cs_warn("%s line %zu: IPv6 nameserver %.*s ignored (IPv6 stays dropped)", path, lineno, (int)(len > 46 ? 46 : len), tok);
			continue;
		}
		if (ipv4_parse_strict(tok, len, &a)) {
			cs_warn("%s line %zu: nameserver '%.*s' is not a dotted-quad IPv4 address; ignored", path, lineno, (int)(len > 46 ? 46 : len), tok);
			continue;
		}
		why = ipv4_forbidden_nameserver(a);
		if (why) {
			cs_warn("%s line %zu: nameserver %.*s is in %s; ignored", path, lineno, (int)len, tok, why);
			continue;
		}
		for (size_t i = 0; i < n; i++)
			dup = dup || addrs[i] == a;
		if (dup)
			continue;
		if (n == max) {
			extra++;
			continue;
		}
		addrs[n++] = a;
	}
	if (ferror(f)) {
		fclose(f);
		return cs_fail(err, CS_EXIT_CONFIG, "cannot read %s; make it a readable file", path);
	}
	fclose(f);
	if (extra)
		cs_warn("%s lists %zu more IPv4 nameservers than the %zu used; DNS is allowed to the first %zu only",
			path, extra, max, max);
	if (n == 0)
		cs_warn("%s has no usable IPv4 nameserver: DNS stays blocked", path);
	return (int)n;
}

int route_default_gateway(const char *path, uint32_t *gw, struct cs_error *err)
{
	FILE *f = fopen(path, "re");
	char line[512];
	bool found = false, header = true;
	unsigned best_metric = 0;

	if (!f)
		return cs_fail(err, CS_EXIT_CONFIG, "CLI_SANDBOX_ALLOW_HOST_NETWORK=true, but the routing table %s cannot be read (%s); unset it or run with /proc mounted",
			       path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		char iface[32];
		unsigned dest, gate, flags, metric, mask;

		if (header) {  /* "Iface Destination Gateway Flags ..." */
			header = false;
			continue;
		}
		if (sscanf(line, "%31s %x %x %x %*d %*u %u %x", iface, &dest, &gate, &flags, &metric, &mask) != 6)
			continue;
		if (dest != 0 || mask != 0 || gate == 0 ||
		    (flags & (RTF_UP_BIT | RTF_GATEWAY_BIT)) != (RTF_UP_BIT | RTF_GATEWAY_BIT))
			continue;
		if (!found || metric < best_metric) {
			/* The kernel prints the big-endian address as a host integer. */
			*gw = ntohl(gate);
			best_metric = metric;
			found = true;
		}
	}
	fclose(f);
	if (!found)
		return cs_fail(err, CS_EXIT_CONFIG, "CLI_SANDBOX_ALLOW_HOST_NETWORK=true, but %s has no default route through a gateway; unset it, or attach the container to a network with a gateway",
			       path);
	return 0;
}
