/* dns_answer_addrs FILE: what the resolver's fast path takes from the DNS
 * answer in FILE (an answer to "api.test", id 0x1234, as the fuzz corpus
 * holds them): one IPv4 address per line, nothing when it takes none.  The
 * glibc comparison (dns_glibc.py) runs it beside getaddrinfo. */
#include <stdio.h>

#include "profiles/dns_wire.h"

int main(int argc, char **argv)
{
	static uint8_t msg[65536];
	uint32_t addrs[8];
	size_t len, n = 0;
	FILE *f = argc == 2 ? fopen(argv[1], "rb") : NULL;

	if (!f) {
		fputs("usage: dns_answer_addrs FILE\n", stderr);
		return 2;
	}
	len = fread(msg, 1, sizeof(msg), f);
	fclose(f);
	if (dns_answer_addrs(msg, len, 0x1234, "api.test", addrs, 8, &n))
		for (size_t i = 0; i < n; i++)
			printf("%u.%u.%u.%u\n", addrs[i] >> 24, (addrs[i] >> 16) & 255, (addrs[i] >> 8) & 255, addrs[i] & 255);
	return 0;
}
