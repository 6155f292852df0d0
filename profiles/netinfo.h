/* What the interactive profile reads about the container's own network:
 * the nameservers of resolv.conf (DNS is allowed to these only) and the
 * default gateway of the routing table (CLI_SANDBOX_ALLOW_HOST_NETWORK). */
#ifndef CLI_SANDBOX_NETINFO_H
#define CLI_SANDBOX_NETINFO_H

#include <stddef.h>
#include <stdint.h>

#include "base/status.h"

/* One resolv.conf line: the address of a "nameserver ADDR" line (its
 * length in *len, non-zero), or NULL for any other line.  The one parser of
 * the keyword, for the profile below and --verify-only's probes. */
const char *resolv_conf_line_nameserver(const char *line, size_t *len);

/* The IPv4 nameservers of a resolv.conf, in file order, at most max
 * (further ones are ignored with a warning, as libc ignores those past its
 * third).  IPv6 nameservers and unusable lines are skipped with a warning.
 * A missing file gives 0 nameservers and a warning (DNS then stays blocked).
 * Returns the count, or -1 with err (78) when the file cannot be read. */
int resolv_conf_nameservers(const char *path, uint32_t *addrs, size_t max, struct cs_error *err);

/* The gateway of the default route (/proc/net/route format; the one with
 * the lowest metric), host byte order.  0, or -1 with err (78) when there is
 * none or the table cannot be read. */
int route_default_gateway(const char *path, uint32_t *gw, struct cs_error *err);

#endif
