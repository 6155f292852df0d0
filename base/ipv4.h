/* An inclusive range of IPv4 addresses in host byte order.
 *
 * The one representation of "a destination block" shared by the policy, the
 * range arithmetic and the ruleset model; renderers turn it into prefixes,
 * nft ranges or half-open netlink interval elements. */
#ifndef CLI_SANDBOX_IPV4_RANGE_H
#define CLI_SANDBOX_IPV4_RANGE_H

#include <stdint.h>

struct ipv4_range {
	uint32_t first;
	uint32_t last;
};

#endif
