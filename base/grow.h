/* The one array-growth helper: amortised doubling for the growable arrays
 * of every stage (rules, sets, chains, destinations, ranges, ...). */
#ifndef CLI_SANDBOX_BASE_GROW_H
#define CLI_SANDBOX_BASE_GROW_H

#include <stddef.h>

/* Makes room in *items (an array of `size`-byte elements with *cap slots,
 * `used` of them taken) for one more, doubling from `first_cap`.  0, or -1
 * when memory runs out or the size would overflow (*items unchanged). */
int grow_array(void **items, size_t *cap, size_t used, size_t size, size_t first_cap);

#endif
