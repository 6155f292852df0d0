/* libFuzzer harness for the credentials file: no input may crash the
 * parser; every accepted entry has a credential name and a value free of
 * NUL and newline; a rejection is one line that holds none of the input's
 * values (the messages name line numbers only). */
#include "fuzz.h"
#include "base/credentials.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cs_credentials c = { 0 };
	struct cs_error err;

	if (credentials_parse((const char *)data, size, &c, &err) != 0) {
		invariant_error(&err, CS_EXIT_CONFIG);
		invariant(c.n == 0 && c.entries == NULL);
		return 0;
	}
	for (size_t i = 0; i < c.n; i++) {
		const char *e = c.entries[i], *v = credential_value(e);

		invariant(credential_name_ok(e, (size_t)(v - 1 - e)));
		invariant(strchr(v, '\n') == NULL);
		for (size_t k = 0; k < i; k++)
			invariant(strncmp(c.entries[k], e, (size_t)(v - e)) != 0);
	}
	invariant(c.n == 0 || c.entries[c.n] == NULL);
	credentials_free(&c);
	return 0;
}
