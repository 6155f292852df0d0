/* libFuzzer harness for resolv.conf: no file may crash the reader, and
 * every nameserver it returns is an IPv4 address DNS may go to, once. */
#include "base/ipv4.h"
#include "fuzz.h"
#include "profiles/netinfo.h"

#define MAX 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t addrs[MAX + 1];
	struct cs_error err;
	int n;

	addrs[MAX] = 0x5a5a5a5a;  /* never written: at most MAX come back */
	n = resolv_conf_nameservers(fuzz_file(0, data, size), addrs, MAX, &err);
	if (n < 0) {
		invariant_error(&err, CS_EXIT_CONFIG);
		return 0;
	}
	invariant(n <= MAX && addrs[MAX] == 0x5a5a5a5a);
	for (int i = 0; i < n; i++) {
		invariant(ipv4_forbidden_nameserver(addrs[i]) == NULL);
		for (int k = 0; k < i; k++)
			invariant(addrs[k] != addrs[i]);
	}
	return 0;
}
