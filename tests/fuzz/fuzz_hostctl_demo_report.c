/* libFuzzer harness for the demo's judge (hostctl/demo_judge.h): the input
 * is what a run left, the model's log, the run's stderr and its stdout,
 * separated by NUL bytes (the first byte's bits choose hello.txt's state,
 * root or not, whose key, text or JSON).  No input may crash the reader;
 * the text report is printable ASCII, tabs and newlines only, and never
 * holds the key's value; the JSON report reads back as one object with
 * the five steps in order and an "ok" that agrees with the exit status. */
#include <jansson.h>

#include "fuzz.h"
#include "hostctl/demo_report.h"

static const char key[] = "Kq9ZxQ7vJ2wY8";

static char *report(const struct demo_run *r, bool json, int *rc)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	invariant(f != NULL);
	*rc = demo_report(r, json, f);
	fclose(f);
	return buf;
}

/* The next part of the input, up to a NUL byte or the end. */
static struct demo_text part(const char **p, const char *end)
{
	const char *nul = memchr(*p, '\0', (size_t)(end - *p));
	struct demo_text t = { *p, (size_t)((nul ? nul : end) - *p) };

	*p = nul ? nul + 1 : end;
	return t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const steps[] = { "written", "refused", "no-key", "capabilities", "ruleset" };
	const char *p = (const char *)data + (size ? 1 : 0), *end = (const char *)data + size;
	unsigned flags = size ? data[0] : 0;
	struct demo_run r = {
		.cli = "claude", .engine = "podman", .image = "localhost/cli-sandbox:claude",
		.folder = "/tmp/cli-sandbox-demo.x", .workspace = "/tmp/cli-sandbox-demo.x/workspace",
		.model = "http://198.51.100.2:8080", .probe = "198.51.100.30:443", .key_env = "ANTHROPIC_API_KEY",
		.key = key, .owner = 1000, .inside = 1000, .names = { "m", "n", "g" }, .seconds = 20,
	};
	json_t *o, *s;
	char *out;
	int rc, rc_json;
	size_t i;

	r.hello_ok = flags & 1;
	r.hello_uid = flags & 2 ? 1000 : 0;
	r.as_root = flags & 4;
	r.key_yours = flags & 8;
	r.keep = flags & 16;
	r.model_log = part(&p, end);
	r.cli_err = part(&p, end);
	r.cli_out = part(&p, end);
	out = report(&r, false, &rc);
	invariant(rc == 0 || rc == 1);
	for (const char *c = out; *c; c++)
		invariant((*c >= 0x20 && *c < 0x7f) || *c == '\n' || *c == '\t');
	invariant(strstr(out, key) == NULL && strstr(out, "\nsummary (claude under podman, 20 s;") != NULL);
	free(out);
	out = report(&r, true, &rc_json);
	invariant(strstr(out, key) == NULL);
	o = json_loads(out, 0, NULL);
	invariant(json_is_object(o) && rc_json == rc && json_is_true(json_object_get(o, "ok")) == (rc == 0));
	invariant(json_array_size(json_object_get(o, "steps")) == 5);
	json_array_foreach (json_object_get(o, "steps"), i, s)
		invariant(strcmp(json_string_value(json_object_get(s, "name")), steps[i]) == 0);
	json_decref(o);
	free(out);
	return 0;
}
