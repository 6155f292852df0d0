/* TASK_AGENT_MODEL_BASE_URL: the model gateway, an operator-controlled trust
 * input.  Parsing is strict and pure: every rejection names what is wrong
 * and how to fix it, and nothing is resolved or normalised silently. */
#ifndef CLI_SANDBOX_BASE_MODEL_URL_H
#define CLI_SANDBOX_BASE_MODEL_URL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/ipv4.h"
#include "base/status.h"

#define MODEL_URL_MAX 2048
#define MODEL_HOST_MAX 254

struct model_url {
	bool https;
	char host[MODEL_HOST_MAX];  /* dotted quad, or a lower-case DNS name */
	bool host_is_ipv4;
	uint32_t addr;              /* host byte order, when host_is_ipv4 */
	uint16_t port;              /* explicit, or 80/443 */
	bool port_explicit;
	char path[MODEL_URL_MAX];   /* "" or starting with '/' */
	char text[MODEL_URL_MAX];   /* the URL as given */
};

/* allow_dns_name: the interactive profile accepts a DNS name as host; the
 * managed profile needs a literal address the firewall can pin. */
int model_url_parse(const char *s, bool allow_dns_name, struct model_url *out,
		    struct cs_error *err);

/* Validates a DNS name (letters, digits, hyphens; labels of 1-63; at most
 * 253 characters; no trailing dot; not all-numeric). 0 or -1. */
int dns_name_valid(const char *s, size_t len);

#endif
