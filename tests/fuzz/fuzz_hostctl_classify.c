/* libFuzzer harness for the probe's classifier (hostctl/classify.h): the
 * input is split at 0xff bytes into the answers of the probe's paths, each
 * a 2-byte status then its body.  No input may crash it; it reports only
 * APIs it knows, "OK" exactly when it found one, and a control answer
 * never makes an API count. */
#include "fuzz.h"
#include "base/cli_names.h"
#include "hostctl/classify.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct probe_answer a[PROBE_N] = { { 0 } };
	const uint8_t *p = data, *end = data + size;
	unsigned speaks;
	enum verdict v;

	for (int i = 0; i < PROBE_N && p < end; i++) {
		const uint8_t *sep = memchr(p, 0xff, (size_t)(end - p));
		const uint8_t *stop = sep ? sep : end;

		if (stop - p >= 2) {
			a[i].status = (p[0] << 8 | p[1]) % 600;
			a[i].body = (const char *)p + 2;
			a[i].len = (size_t)(stop - p - 2);
		}
		p = sep ? sep + 1 : end;
	}
	v = classify_endpoint(a, &speaks);
	invariant((speaks & ~(unsigned)(CS_API_MESSAGES | CS_API_CHAT | CS_API_RESPONSES | CS_API_OLLAMA | CS_API_GEMINI)) == 0);
	invariant((v == VERDICT_OK) == (speaks != 0));
	for (int i = PROBE_CONTROL_POST; i < PROBE_N; i++)
		invariant(!answer_speaks((enum probe_path)i, a[i].status, a[i].body, a[i].len));
	return 0;
}
