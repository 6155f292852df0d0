/* libFuzzer harness for CLI_SANDBOX_ALLOW: no input may crash the parser,
 * and every accepted entry is one the firewall may open. */
#include "fuzz.h"
#include "base/allow.h"
#include "base/ipv4.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char s[8192];
	struct allow_entry *v;
	struct cs_error err;
	size_t n;

	if (size >= sizeof(s))
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (allow_parse(s, &v, &n, &err) != 0) {
		invariant_error(&err, CS_EXIT_CONFIG);
		return 0;
	}
	invariant(n >= 1 && n <= size + 1);
	for (size_t i = 0; i < n; i++) {
		const struct allow_entry *a = &v[i];
		uint8_t len;

		invariant(a->port != 0 && a->port != 53);
		invariant(a->text[0] && memchr(a->text, '\0', sizeof(a->text)) != NULL);
		if (a->is_name) {
			invariant(dns_name_valid(a->name, strlen(a->name)) == 0);
			for (const char *c = a->name; *c; c++)
				invariant(*c < 'A' || *c > 'Z');
			continue;
		}
		invariant(a->range.first <= a->range.last);
		invariant(ipv4_range_is_prefix(a->range, &len) && len >= CS_MIN_PREFIX_LEN);
		invariant(ipv4_range_forbidden_overlap(a->range) == NULL);
	}
	free(v);
	return 0;
}
