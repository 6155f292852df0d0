/* ping's report (hostctl/ping_report.h): ping.mjs's real lines and the
 * init's block log read with jansson, anything else skipped, a line that
 * does not read a failed check; the text and JSON reports byte for byte,
 * a server's escape sequence never reaching the terminal, and the verdict. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hostctl/ping_report.h"

static char *render(json_t *checks, bool json, int *rc)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	*rc = ping_render(checks, "claude", "ollama", "gateway", json, f);
	fclose(f);
	return buf;
}

static void lines(void)
{
	static const struct {
		const char *line, *check;
		int ok;  /* 1, 0, or -1: no check */
	} t[] = {
		{ "{\"check\":\"direct\",\"ok\":true,\"ms\":212,\"api\":\"ollama\",\"reply\":\"pong\",\"load_ms\":2400,\"cold\":true}", "direct", 1 },
		{ "{\"check\":\"tools\",\"ok\":false,\"api\":\"anthropic\",\"error\":\"fetch failed\"}", "tools", 0 },
		{ "cli-sandbox-init: blocked: tcp 203.0.113.5:443", "firewall", 0 },
		{ "cli-sandbox-init: applying the managed profile", NULL, -1 },
		{ "", NULL, -1 },
		{ "npm warn something", NULL, -1 },
		{ "{\"check\":\"direct\",\"ok\":tru", "?", 0 },                   /* cut */
		{ "{\"ok\":true,\"ok\":false,\"check\":\"x\"}", "?", 0 },          /* a key twice: which would win? */
		{ "{\"check\":\"gateway\",\"ok\":true,\"ms\":9}\r", "gateway", 1 }, /* a terminal's CR */
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		json_t *c = ping_line(t[i].line, strlen(t[i].line));

		if (t[i].ok < 0) {
			CHECK(c == NULL, "line %zu is not a check", i);
		} else {
			CHECK(c && strcmp(json_string_value(json_object_get(c, "check")), t[i].check) == 0 &&
				      json_is_true(json_object_get(c, "ok")) == (t[i].ok == 1),
			      "line %zu: check %s, ok %d", i, t[i].check, t[i].ok);
		}
		json_decref(c);
	}
}

static void reports(void)
{
	const char *in[] = {
		"{\"check\":\"direct\",\"ok\":true,\"ms\":212,\"api\":\"ollama\",\"reply\":\"pong\\u001b[2J\",\"load_ms\":2400,\"cold\":true}",
		"{\"check\":\"gateway\",\"ok\":true,\"ms\":35,\"api\":\"anthropic\",\"tool\":\"write_file\"}",
		("{\"check\":\"tools\",\"ok\":false,\"ms\":80,\"api\":\"anthropic\",\"error\":\"the model answered in plain text, not a structured tool call\","
		"\"reply\":\"I will\",\"hint\":\"pick a model that calls tools\"}"),
	};
	const char *want = "{\"cli\":\"claude\",\"endpoint\":\"ollama\",\"path\":\"gateway\",\"ready\":false,\"checks\":[{\"check\":\"direct\"";
	json_t *checks = json_array();
	char *out;
	int rc;

	for (size_t i = 0; i < 2; i++)
		json_array_append_new(checks, ping_line(in[i], strlen(in[i])));
	out = render(checks, false, &rc);
	CHECK_STR(out, "ok      direct     212 ms  reply: pong?[2J, load 2400 ms, cold (was not loaded)\n"
		       "        hint: loading dominates; keep the model loaded with OLLAMA_KEEP_ALIVE (e.g. 30m) on the Ollama host\n"
		       "ok      gateway     35 ms  tool call write_file\n"
		       "READY (claude via gateway to ollama)\n");
	CHECK(rc == 0, "every check passed: exit 0, not %d", rc);
	free(out);
	json_array_append_new(checks, ping_line(in[2], strlen(in[2])));
	out = render(checks, false, &rc);
	CHECK(strstr(out, "NOT OK  tools    the model answered in plain text, not a structured tool call\n        hint: pick a model that calls tools\n") &&
		      strstr(out, "\nNOT OK (claude via gateway to ollama)\n") && rc == 1,
	      "a failed check: its error and hint, NOT OK, exit 1: %s", out);
	free(out);
	out = render(checks, true, &rc);
	CHECK(strncmp(out, want, strlen(want)) == 0 &&
		      strstr(out, "\\u001B[2J") && rc == 1,
	      "JSON: the object, the checks as they came (escaped): %s", out);
	free(out);
	json_decref(checks);

	checks = json_array();
	out = render(checks, false, &rc);
	CHECK_STR(out, "NOT OK (claude via gateway to ollama)\n");
	CHECK(rc == 1, "no check at all is NOT OK");
	free(out);
	json_decref(checks);
}

int main(void)
{
	lines();
	reports();
	return check_done("hostctl ping report");
}
