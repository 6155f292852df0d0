/* libFuzzer harness for the resolver's fast path: a DNS answer comes from
 * the network and the resolver child parses it.  No input may crash it or
 * read outside the message (an exactly sized heap copy), and an answer it
 * accepts has between 1 and max distinct addresses.  The question is fixed:
 * "api.test", id 0x1234; the seeds are answers to it. */
#include "fuzz.h"
#include "profiles/dns_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t addrs[4];
	size_t n = 99;
	uint8_t *copy = malloc(size ? size : 1);
	bool ok;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	ok = dns_answer_addrs(copy, size, 0x1234, "api.test", addrs, 4, &n);
	invariant(ok ? n >= 1 && n <= 4 : n == 0);
	for (size_t i = 0; ok && i < n; i++)
		for (size_t k = 0; k < i; k++)
			invariant(addrs[i] != addrs[k]);
	free(copy);
	return 0;
}
