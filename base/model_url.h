/* TASK_AGENT_MODEL_BASE_URL: the model gateway, an operator-controlled trust
 * input.  Parsing is strict and pure: every rejection names what is wrong
 * and how to fix it, and nothing is resolved or normalised silently. */
#ifndef CLI_SANDBOX_MODEL_URL_H
#define CLI_SANDBOX_MODEL_URL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "entrypoint/status.h"

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

/* Strict dotted-quad IPv4: four decimal octets 0-255, no leading zeros.
 * Returns 0 and the address in host byte order, or -1. */
int ipv4_parse_strict(const char *s, size_t len, uint32_t *addr);

/* A host made only of decimal and 0x-hex labels ("0x7f.1", "2130706433",
 * "192.0..2") is an attempt at an IPv4 address, which inet_aton would read
 * as one, so it gets the strict IPv4 rules, never the DNS-name rules. */
bool ipv4_looks_numeric(const char *h, size_t len);

/* Strict decimal port 1-65535 without leading zeros; 0 or -1. */
int port_parse_strict(const char *s, size_t len, uint16_t *port);

/* The destinations no profile may allow: returns a description such as
 * "loopback 127.0.0.0/8", or NULL when the address is acceptable. */
const char *ipv4_forbidden_destination(uint32_t addr);

/* Validates a DNS name (letters, digits, hyphens; labels of 1-63; at most
 * 253 characters; no trailing dot; not all-numeric). 0 or -1. */
int dns_name_valid(const char *s, size_t len);

#endif
