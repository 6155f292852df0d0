/* CLI_SANDBOX_ALLOW: the user's own additions in the interactive profile,
 * parsed by config_load() where the variable is validated (base/config.h).
 *
 *   CLI_SANDBOX_ALLOW=entry[,entry...]
 *   entry = name[:port] | a.b.c.d[/len][:port]      (port defaults to 443)
 *
 * Parsed as strictly as the model URL: strict dotted quads, strict ports,
 * strict DNS names (stored in lower case), prefix lengths CS_MIN_PREFIX_LEN
 * to 32 in decimal without leading zeros and without host bits, no forbidden
 * destination, no port 53.  Every rejection names the entry. */
#ifndef CLI_SANDBOX_ALLOW_H
#define CLI_SANDBOX_ALLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/ipv4.h"
#include "base/model_url.h"
#include "base/status.h"

#define ALLOW_TEXT_MAX 80

struct allow_entry {
	bool is_name;
	char name[MODEL_HOST_MAX];   /* is_name: lower case */
	struct ipv4_range range;     /* !is_name */
	uint16_t port;
	char text[ALLOW_TEXT_MAX];   /* the entry as written (shortened), for origins */
};

/* Parses s (the raw variable).  On success *out is a malloc'd array of *n
 * entries (free() it); -1 with err (78) otherwise. */
int allow_parse(const char *s, struct allow_entry **out, size_t *n, struct cs_error *err);

#endif
