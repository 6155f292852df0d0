/* SHA-256 (FIPS 180-4), for the ruleset digest that ties a running
 * container to the dry-run an operator reviewed. */
#ifndef CLI_SANDBOX_BASE_SHA256_H
#define CLI_SANDBOX_BASE_SHA256_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Writes 64 lower-case hex digits and a NUL into hex[65]. */
void sha256_hex(const void *data, size_t len, char hex[65]);

/* The same, fed in pieces: init, any number of updates, final. */
struct sha256 {
	uint32_t h[8];
	uint64_t len;       /* bytes fed so far */
	uint8_t block[64];  /* the incomplete block */
};
void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
void sha256_final_hex(struct sha256 *s, char hex[65]);

/* Tests only: true keeps to the portable code, so both paths can be
 * checked against the same vectors. */
extern bool sha256_force_portable;

#endif
