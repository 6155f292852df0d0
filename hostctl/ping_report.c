#include "hostctl/ping_report.h"
#include "hostctl/printable.h"

#include <stdlib.h>
#include <string.h>

static const char blocked[] = "cli-sandbox-init: blocked: ";

json_t *ping_line(const char *line, size_t n)
{
	char text[PING_LINE_MAX];
	json_error_t e;
	json_t *o;

	if (n > 0 && line[n - 1] == '\r')
		n--;
	if (n >= sizeof(blocked) - 1 && memcmp(line, blocked, sizeof(blocked) - 1) == 0) {
		size_t k = n - (sizeof(blocked) - 1);
		char what[512];

		if (k >= sizeof(what))
			k = sizeof(what) - 1;
		memcpy(text, line + sizeof(blocked) - 1, k);
		text[k] = '\0';
		printable_copy(text, what, sizeof(what));
		snprintf(text, sizeof(text), "the firewall refused %s", what);
		return json_pack("{s:s, s:b, s:s}", "check", "firewall", "ok", 0, "error", text);
	}
	if (n == 0 || line[0] != '{')
		return NULL;
	o = n < PING_LINE_MAX ? json_loadb(line, n, JSON_REJECT_DUPLICATES, &e) : NULL;
	if (json_is_object(o))
		return o;
	json_decref(o);
	return json_pack("{s:s, s:b, s:s}", "check", "?", "ok", 0, "error", "the sandbox printed a line that is not a check's JSON");
}

/* The field's value as text: a string made printable, a number or boolean as
 * JSON writes it, "" for null or no such field. */
static void field(json_t *o, const char *key, char *out, size_t len)
{
	json_t *v = json_object_get(o, key);
	char *s;

	out[0] = '\0';
	if (!v || json_is_null(v))
		return;
	if (json_is_string(v)) {
		printable_copy(json_string_value(v), out, len);
		return;
	}
	s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
	printable_copy(s, out, len);
	free(s);
}

static void render_text(json_t *c, FILE *out)
{
	char check[64], ms[32], tool[128], reply[256], error[1024], hint[512], load[32], extra[128] = "";
	json_t *cold = json_object_get(c, "cold"), *lv = json_object_get(c, "load_ms");

	field(c, "check", check, sizeof(check));
	field(c, "ms", ms, sizeof(ms));
	field(c, "tool", tool, sizeof(tool));
	field(c, "reply", reply, sizeof(reply));
	field(c, "error", error, sizeof(error));
	field(c, "hint", hint, sizeof(hint));
	field(c, "load_ms", load, sizeof(load));
	if (load[0])
		snprintf(extra, sizeof(extra), ", load %s ms, %s", load,
			 json_is_true(cold) ? "cold (was not loaded)" : json_is_false(cold) ? "loaded" : "load state unknown");
	if (json_is_true(json_object_get(c, "ok")))
		fprintf(out, "ok      %-8s %5s ms  %s%s%s\n", check, ms, tool[0] ? "tool call " : "reply: ", tool[0] ? tool : reply, extra);
	else
		fprintf(out, "NOT OK  %-8s %s%s%s\n", check, error, hint[0] ? "\n        hint: " : "", hint);
	if (json_is_number(lv) && json_number_value(lv) > 2000)
		fputs("        hint: loading dominates; keep the model loaded with OLLAMA_KEEP_ALIVE (e.g. 30m) on the Ollama host\n", out);
}

int ping_render(json_t *checks, const char *cli, const char *endpoint, const char *path, bool json, FILE *out)
{
	bool ready = json_array_size(checks) > 0;
	size_t i;
	json_t *c;

	json_array_foreach (checks, i, c)
		if (!json_is_true(json_object_get(c, "ok")))
			ready = false;
	if (json) {
		json_t *o = json_pack("{s:s, s:s, s:s, s:b, s:O}", "cli", cli, "endpoint", endpoint, "path", path, "ready", ready, "checks", checks);
		char *s = o ? json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;

		if (s)
			fprintf(out, "%s\n", s);
		free(s);
		json_decref(o);
	} else {
		json_array_foreach (checks, i, c)
			render_text(c, out);
		fprintf(out, "%s (%s via %s to %s)\n", ready ? "READY" : "NOT OK", cli, path, endpoint);
	}
	return ready ? 0 : 1;
}
