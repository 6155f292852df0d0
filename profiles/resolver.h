/* Name resolution for the interactive profile, with a bounded total time. */
#ifndef CLI_SANDBOX_RESOLVER_H
#define CLI_SANDBOX_RESOLVER_H

#include <stddef.h>
#include <stdint.h>

/* policy_env.resolve: IPv4 addresses of name via getaddrinfo (host order). */
size_t resolver_getaddrinfo(const char *name, uint32_t *addrs, size_t max, void *ctx);

#endif
