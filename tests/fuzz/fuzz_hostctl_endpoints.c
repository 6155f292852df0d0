/* libFuzzer harness for the endpoints file (hostctl/endpoint_file.h): no
 * input may crash the reader; every endpoint it accepts meets the rules of
 * validate.h and formats to a line that reads back the same; a rejection
 * is one line naming the file. */
#include <stdlib.h>

#include "fuzz.h"
#include "hostctl/endpoint_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct endpoints eps, again;
	struct cs_error err;
	char line[2048];

	if (endpoints_parse((const char *)data, size, "/fuzz/endpoints", &eps, &err) != 0) {
		invariant_error(&err, CS_EXIT_CONFIG);
		invariant(strncmp(err.msg, "/fuzz/endpoints", 15) == 0 && eps.n == 0);
		return 0;
	}
	for (size_t i = 0; i < eps.n; i++) {
		const struct endpoint *e = &eps.e[i];

		invariant(valid_endpoint_name(e->name, strlen(e->name)));
		invariant(check_url(e->url, strlen(e->url), &err) == 0);
		invariant(!e->model[0] || valid_model(e->model, strlen(e->model)));
		invariant(!e->key_env[0] || valid_key_env(e->key_env, strlen(e->key_env)));
		invariant(endpoint_format(e, line, sizeof(line)));
		invariant(endpoints_parse(line, strlen(line), "/fuzz/line", &again, &err) == 0 && again.n == 1);
		invariant(memcmp(&again.e[0], e, sizeof(*e)) == 0);
	}
	return 0;
}
