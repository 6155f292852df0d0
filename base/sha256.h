/* SHA-256 (FIPS 180-4), for the ruleset digest that ties a running
 * container to the dry-run an operator reviewed. */
#ifndef CLI_SANDBOX_BASE_SHA256_H
#define CLI_SANDBOX_BASE_SHA256_H

#include <stddef.h>
#include <stdint.h>

/* Writes 64 lower-case hex digits and a NUL into hex[65]. */
void sha256_hex(const void *data, size_t len, char hex[65]);

#endif
