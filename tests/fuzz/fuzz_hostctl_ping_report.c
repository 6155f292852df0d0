/* libFuzzer harness for ping's report (hostctl/ping_report.h): the input,
 * cut at newlines, is what a sandbox printed (ping.mjs's JSON lines, the
 * init's block log, anything else).  No input may crash the reader; the
 * text report is printable ASCII and newlines only, its last line the
 * verdict; the JSON report reads back as one object whose "ready" agrees
 * with the exit status. */
#include <jansson.h>

#include "fuzz.h"
#include "hostctl/ping_report.h"

static char *render(json_t *checks, bool json, int *rc)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	invariant(f != NULL);
	*rc = ping_render(checks, "claude", "e", "direct", json, f);
	fclose(f);
	return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data, *end = text + size;
	json_t *checks = json_array(), *o;
	char *out;
	int rc, rc_json;

	for (const char *p = text; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		json_t *c = ping_line(p, (size_t)((nl ? nl : end) - p));

		if (c) {
			invariant(json_is_object(c));
			json_array_append_new(checks, c);
		}
		p = nl ? nl + 1 : end;
	}
	out = render(checks, false, &rc);
	for (const char *s = out; *s; s++)
		invariant((*s >= 0x20 && *s < 0x7f) || *s == '\n');
	invariant(strstr(out, rc == 0 ? "READY (claude via direct to e)\n" : "NOT OK (claude via direct to e)\n") != NULL);
	free(out);
	out = render(checks, true, &rc_json);
	o = json_loads(out, 0, NULL);
	invariant(json_is_object(o) && rc_json == rc && json_is_true(json_object_get(o, "ready")) == (rc == 0));
	json_decref(o);
	free(out);
	json_decref(checks);
	return 0;
}
