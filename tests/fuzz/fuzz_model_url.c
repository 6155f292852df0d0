/* libFuzzer harness for the URL parser: no input may crash it, and every
 * accepted URL must satisfy the contract's invariants. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/model_url.h"

static void invariant(int ok)
{
	if (!ok)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);  /* libFuzzer calls it */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char s[MODEL_URL_MAX + 16];
	struct model_url u;
	struct cs_error err;

	if (size == 0 || size >= sizeof(s))
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	/* The first byte picks the profile: managed or interactive. */
	if (model_url_parse(s, data[0] & 1, &u, &err) != 0) {
		invariant(err.status == CS_EXIT_CONFIG && strchr(err.msg, '\n') == NULL && err.msg[0]);
		return 0;
	}
	invariant(strncmp(s, "http://", 7) == 0 || strncmp(s, "https://", 8) == 0);
	invariant(u.port != 0 && u.port != 53);
	invariant(!strpbrk(s, "@?#%\\ \t\r\n"));
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		invariant(*p > 0x20 && *p < 0x7f);
	if (!(data[0] & 1))
		invariant(u.host_is_ipv4);
	if (u.host_is_ipv4)
		invariant(ipv4_forbidden_destination(u.addr) == NULL);
	invariant(u.path[0] == '\0' || u.path[0] == '/');
	invariant(strstr(u.path, "/../") == NULL && strcmp(u.path + (strlen(u.path) > 3 ? strlen(u.path) - 3 : 0), "/..") != 0);
	return 0;
}
