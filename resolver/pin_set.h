/* Pinning: the addresses of one answer go into the init's dynamic set
 * (`ipv4_addr . inet_service`, flags timeout) as one nfnetlink batch, one
 * NEWSETELEM message whose every element carries TIMEOUT and EXPIRATION =
 * T.  On kernels with element updates (6.x), re-adding a present element
 * with both refreshes its expiry to T; a fixed T means a refresh never
 * shortens one.  The caller answers the client only after this returns 0,
 * i.e. after the kernel acknowledged the batch. */
#ifndef CLI_SANDBOX_RESOLVER_PIN_SET_H
#define CLI_SANDBOX_RESOLVER_PIN_SET_H

#include <libmnl/libmnl.h>
#include <stddef.h>
#include <stdint.h>

#include "base/status.h"

struct pin_target {
	const char *table;    /* inet table */
	const char *set;
	uint32_t timeout_ms;
};

/* Pins every address (host order) with every port.  0, or -1 with err
 * (the kernel's refusal, named). */
int pin_set_add(struct mnl_socket *nl, const struct pin_target *t, const uint32_t *addrs, size_t n_addrs,
		const uint16_t *ports, size_t n_ports, struct cs_error *err);

#endif
