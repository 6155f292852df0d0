/* The resolver child's fast path: every name's A query sent at once to the
 * first IPv4 nameserver, so that the names cost about one round trip
 * together instead of one each (glibc's getaddrinfo asks one name after the
 * other, and the first call sets up its whole resolver).
 *
 * It only answers where glibc's first question would be the same one: the
 * hosts line of nsswitch.conf is exactly "files dns", the name is not in
 * /etc/hosts, it has at least ndots dots (so glibc too asks the name as it
 * is before any search domain), no resolv.conf option or environment
 * variable changes how glibc asks, and the answer is a clean positive one
 * (dns_wire.h).  Every other name, and every name when anything is in
 * doubt, is left unanswered for getaddrinfo, which then decides as before.
 * Runs in the resolver child, after it has shed every privilege. */
#ifndef CLI_SANDBOX_DNS_STUB_H
#define CLI_SANDBOX_DNS_STUB_H

#include <stddef.h>
#include <stdint.h>

#include "profiles/lookup.h"

#define DNS_STUB_WAIT_MS 1000   /* then whatever is unanswered goes to glibc */

struct dns_stub {
	uint32_t nameserver;        /* IPv4, host order, port 53; 0: no fast path */
	const char *resolv_conf, *nsswitch_conf, *hosts;
	/* How long the answers may take; 0 (what the init passes):
	 * DNS_STUB_WAIT_MS.  Only a test program sets more, so that what it
	 * asserts does not depend on the machine's load.  A struct field,
	 * never read from the environment or a file: not an input anyone but
	 * the caller controls. */
	unsigned wait_ms;
};

/* A lookup_batch function (ctx: a struct dns_stub): out[i].answered for
 * every name it resolved. */
void dns_stub_batch(const char *const *names, size_t n, struct lookup_result *out, void *ctx);

/* The gate alone, for tests: 1 when name may take the fast path under these
 * files and this environment, 0 when not. */
int dns_stub_applies(const struct dns_stub *s, const char *name);

#endif
