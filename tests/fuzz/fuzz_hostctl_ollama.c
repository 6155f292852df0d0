/* libFuzzer harness for Ollama's answers as hostctl/ollama.h reads them:
 * the input is an /api/tags body, an /api/show body, and, cut at newlines,
 * the NDJSON lines of an /api/pull stream shown on a terminal (last byte
 * odd) or off one.  No input may crash them; every name kept meets the
 * model rule, and what a pull shows is printable ASCII with only the
 * bar's \r and the lines' \n besides, its percentages 0 to 100. */
#include "fuzz.h"
#include "hostctl/ollama.h"

static void printable_only(const char *s)
{
	for (; *s; s++)
		invariant((*s >= 0x20 && *s < 0x7f) || *s == '\r' || *s == '\n');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ollama_models m;
	const char *text = (const char *)data, *end = text + size;
	struct pull_view v = { 0 };
	struct cs_error err;
	char out[2048];

	if (ollama_parse_tags(text, size, &m, &err) == 0) {
		invariant(m.n <= OLLAMA_MODELS_MAX);
		for (size_t i = 0; i < m.n; i++)
			invariant(valid_model(m.name[i], strlen(m.name[i])));
	} else {
		invariant_error(&err, CS_EXIT_CONFIG);
	}
	(void)ollama_show_has_tools(text, size);

	v.tty = size > 0 && (data[size - 1] & 1);
	for (const char *p = text; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);
		struct pull_event ev;

		if (ollama_parse_pull_line(p, n, &ev) == 0) {
			printable_only(ev.status);
			printable_only(ev.error);
			invariant(ev.total >= -1 && ev.completed >= -1);
			pull_show(&v, &ev, out, sizeof(out));
			printable_only(out);
			for (size_t i = 0; i < v.n; i++)
				invariant(v.pct[i] >= -1 && v.pct[i] <= 100);
		}
		p = nl ? nl + 1 : end;
	}
	pull_end(&v, out, sizeof(out));
	invariant(!v.bar_open);
	return 0;
}
