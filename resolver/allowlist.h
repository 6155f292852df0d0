/* The names the pinning resolver answers: exact names only, each with the
 * ports its addresses are pinned for, and whether it is declared internal
 * (only then may it resolve to a private address).  Built from the command
 * line (--allow NAME:PORT, --internal NAME:PORT); pure. */
#ifndef CLI_SANDBOX_RESOLVER_ALLOWLIST_H
#define CLI_SANDBOX_RESOLVER_ALLOWLIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/status.h"
#include "profiles/dns_wire.h"

#define PIN_PORTS_MAX 8

struct pin_name {
	char name[DNS_NAME_MAX + 1];   /* lower case, no final dot */
	bool internal;
	uint16_t ports[PIN_PORTS_MAX];
	size_t n_ports;
};

struct allowlist {
	struct pin_name *v;
	size_t n, cap;
};

/* Adds "name:port" (port 1-65535; a name given twice collects its ports,
 * and internal once is internal for good).  0, or -1 with err (78) naming
 * the entry. */
int allowlist_add(struct allowlist *al, const char *spec, bool internal, struct cs_error *err);

/* The entry whose name is exactly name (case ignored), or NULL: a
 * subdomain of an allowed name is not that name. */
const struct pin_name *allowlist_find(const struct allowlist *al, const char *name);

void allowlist_free(struct allowlist *al);

#endif
