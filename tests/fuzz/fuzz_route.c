/* libFuzzer harness for the routing table (/proc/net/route format): no
 * file may crash the reader, and a gateway it returns is a real address. */
#include "fuzz.h"
#include "profiles/netinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t gw = 0;
	struct cs_error err;

	if (route_default_gateway(fuzz_file(0, data, size), &gw, &err) != 0) {
		invariant_error(&err, CS_EXIT_CONFIG);
		return 0;
	}
	invariant(gw != 0);
	return 0;
}
