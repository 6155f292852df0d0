/* The one monotonic millisecond clock: deadlines and rate limits in the
 * resolver, the supervisor, the block log and the egress probe. */
#ifndef CLI_SANDBOX_CLOCK_H
#define CLI_SANDBOX_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC in milliseconds. */
int64_t cs_now_ms(void);

#endif
