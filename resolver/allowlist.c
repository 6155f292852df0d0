#include "resolver/allowlist.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/grow.h"
#include "base/ipv4.h"

int allowlist_add(struct allowlist *al, const char *spec, bool internal, struct cs_error *err)
{
	const char *colon = strrchr(spec, ':');
	size_t nlen = colon ? (size_t)(colon - spec) : 0;
	char name[DNS_NAME_MAX + 1];
	uint8_t probe[DNS_QUERY_MAX];
	struct pin_name *p = NULL;
	uint16_t port;

	if (!colon || nlen == 0 || nlen > DNS_NAME_MAX ||
	    port_parse_strict(colon + 1, strlen(colon + 1), &port) != 0)
		return cs_fail(err, CS_EXIT_CONFIG, "allowed name \"%s\" is not NAME:PORT; write it as api.example.com:443", spec);
	for (size_t i = 0; i < nlen; i++)
		name[i] = (char)(spec[i] >= 'A' && spec[i] <= 'Z' ? spec[i] - 'A' + 'a' : spec[i]);
	name[nlen] = '\0';
	/* the query builder's rule is the one rule of a plain host name */
	if (dns_query_build(probe, 0, name) == 0 || ipv4_looks_numeric(name, nlen))
		return cs_fail(err, CS_EXIT_CONFIG, "allowed name \"%s\" is not a plain DNS name; give labels of letters, digits, '-' and '_' without a final dot", spec);
	for (size_t i = 0; i < al->n && !p; i++)
		if (strcmp(al->v[i].name, name) == 0)
			p = &al->v[i];
	if (!p) {
		if (grow_array((void **)&al->v, &al->cap, al->n, sizeof(*al->v), 16))
			return cs_fail(err, CS_EXIT_OSERR, "out of memory for the allowed names");
		p = &al->v[al->n++];
		memset(p, 0, sizeof(*p));
		memcpy(p->name, name, nlen + 1);
	}
	p->internal = p->internal || internal;
	for (size_t i = 0; i < p->n_ports; i++)
		if (p->ports[i] == port)
			return 0;
	if (p->n_ports == PIN_PORTS_MAX)
		return cs_fail(err, CS_EXIT_CONFIG, "allowed name \"%s\" has more than %d ports; allow fewer", spec, PIN_PORTS_MAX);
	p->ports[p->n_ports++] = port;
	return 0;
}

const struct pin_name *allowlist_find(const struct allowlist *al, const char *name)
{
	for (size_t i = 0; i < al->n; i++)
		if (strcasecmp(al->v[i].name, name) == 0)
			return &al->v[i];
	return NULL;
}

void allowlist_free(struct allowlist *al)
{
	free(al->v);
	memset(al, 0, sizeof(*al));
}
