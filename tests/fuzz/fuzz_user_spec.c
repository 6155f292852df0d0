/* libFuzzer harness for CLI_SANDBOX_USER: no input may crash the parser,
 * and no accepted spec names root. */
#include "base/config.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char s[256];
	struct user_spec spec;
	struct cs_error err;

	if (size >= sizeof(s))
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (user_spec_parse(s, &spec, &err) != 0) {
		invariant_error(&err, CS_EXIT_CONFIG);
		return 0;
	}
	if (spec.by_name) {
		invariant(strcmp(spec.name, s) == 0 && strcmp(spec.name, "root") != 0);
		invariant(strlen(spec.name) < CS_USER_NAME_MAX);
	} else {
		invariant(spec.uid != 0 && spec.uid != UINT32_MAX);
		invariant(!spec.has_gid || (spec.gid != 0 && spec.gid != UINT32_MAX));
	}
	return 0;
}
