/* Ollama's native API as hostctl/ollama.h reads it: /api/tags, /api/show's
 * capabilities and /api/pull's NDJSON lines, each from a table of real
 * answers (Ollama 0.13's wire format) and the odd ones a server or a proxy
 * may send; then what a pull shows, on a terminal and off one. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hostctl/ollama.h"

static const char tags_real[] =
	"{\"models\":[{\"name\":\"qwen3:8b\",\"model\":\"qwen3:8b\",\"modified_at\":\"2026-11-01T10:00:00.1+01:00\","
	"\"size\":5225388164,\"digest\":\"500a1f067a9f782620b40bee6f7b0c89e17ae61f686b92c24933e4ca4b2b8b41\","
	"\"details\":{\"parent_model\":\"\",\"format\":\"gguf\",\"family\":\"qwen3\",\"families\":[\"qwen3\"],"
	"\"parameter_size\":\"8.2B\",\"quantization_level\":\"Q4_K_M\"}},"
	"{\"name\":\"hf.co/org/model-GGUF:Q4_K_M\",\"model\":\"hf.co/org/model-GGUF:Q4_K_M\"},"
	"{\"name\":\"llama3.1:latest\"}]}";

static const struct {
	const char *body;
	int rc;          /* 0 or -1 */
	size_t n, skipped;
	const char *first;
} tags[] = {
	{ tags_real, 0, 3, 0, "qwen3:8b" },
	{ "{\"models\":[]}", 0, 0, 0, NULL },
	{ "{\"models\":null}", -1, 0, 0, NULL },                       /* not a list */
	{ "404 page not found", -1, 0, 0, NULL },                       /* another server */
	{ "[{\"name\":\"a\"}]", -1, 0, 0, NULL },
	{ "{\"models\":[{\"name\":\"$(touch x)\"},{\"name\":\"ok:1\"}]}", 0, 1, 1, "ok:1" }, /* a name outside the rule */
	{ "{\"models\":[{\"name\":\"a\\u001b[2Jb\"},{\"model\":\"m\"},{\"name\":7}]}", 0, 0, 3, NULL },
	{ "{\"models\":[{\"name\":\"-rf\"},{\"name\":\"a b\"},{\"name\":\"\"}]}", 0, 0, 3, NULL },
	{ "{\"models\":[],\"models\":[{\"name\":\"x\"}]}", -1, 0, 0, NULL }, /* a key twice: which would win? */
	{ "{\"models\":[{\"name\":\"x\"}]} trailing", -1, 0, 0, NULL },
};

static const struct {
	const char *body;
	bool tools;
} shows[] = {
	{ "{\"modelfile\":\"FROM x\",\"details\":{},\"capabilities\":[\"completion\",\"tools\",\"thinking\"]}", true },
	{ "{\"capabilities\":[\"completion\"]}", false },
	{ "{\"capabilities\":[\"completion\",\"vision\"],\"model_info\":{\"tools\":1}}", false },
	{ "{\"details\":{}}", false },                   /* Ollama before 0.6: no capabilities */
	{ "{\"capabilities\":\"tools\"}", false },       /* not a list */
	{ "{\"capabilities\":[7,null,\"tools\"]}", true },
	{ "{\"error\":\"model 'x' not found\"}", false },
	{ "", false },
};

static const struct {
	const char *line;
	int rc;
	const char *status, *error;
	long long total, completed;
} lines[] = {
	{ "{\"status\":\"pulling manifest\"}", 0, "pulling manifest", "", -1, -1 },
	{ "{\"status\":\"pulling 8eeb52dfb3bb\",\"digest\":\"sha256:8eeb52dfb3bb9aefdf9d1ef24b3bdbcfbe82238798c4b918278320b6fcef18fe\","
	  "\"total\":4920734272,\"completed\":241675264}", 0, "pulling 8eeb52dfb3bb", "", 4920734272LL, 241675264LL },
	{ "{\"status\":\"pulling 8eeb52dfb3bb\",\"digest\":\"sha256:8eeb\",\"total\":4920734272}", 0, "pulling 8eeb52dfb3bb", "", 4920734272LL, -1 },
	{ "{\"status\":\"success\"}", 0, "success", "", -1, -1 },
	{ "{\"error\":\"pull model manifest: file does not exist\"}", 0, "", "pull model manifest: file does not exist", -1, -1 },
	{ "{\"error\":{\"message\":\"x\"}}", 0, "", "an error the server did not describe", -1, -1 },
	{ "{\"status\":\"a\\u001b]0;pwned\\u0007b\\n\"}", 0, "a?]0;pwned?b?", "", -1, -1 }, /* no escape reaches the terminal */
	{ "{\"status\":\"x\",\"total\":-5,\"completed\":1.5}", 0, "x", "", -1, -1 },
	{ "{\"status\":\"x\",\"total\":\"9\"}", 0, "x", "", -1, -1 },
	{ "not json", -1, "", "", -1, -1 },
	{ "[1,2]", -1, "", "", -1, -1 },
	{ "", -1, "", "", -1, -1 },
};

/* Feeds lines to a view; everything it shows, concatenated. */
static void show_all(bool tty, const char *const *in, size_t n, char *out, size_t len, struct pull_view *v)
{
	char piece[512];

	memset(v, 0, sizeof(*v));
	v->tty = tty;
	out[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		struct pull_event ev;
		if (ollama_parse_pull_line(in[i], strlen(in[i]), &ev) != 0)
			continue;
		pull_show(v, &ev, piece, sizeof(piece));
		strncat(out, piece, len - strlen(out) - 1);
	}
	pull_end(v, piece, sizeof(piece));
	strncat(out, piece, len - strlen(out) - 1);
}

int main(void)
{
	struct ollama_models *m = calloc(1, sizeof(*m));
	struct cs_error err;
	struct pull_view v;
	char out[4096];

	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
		int rc = ollama_parse_tags(tags[i].body, strlen(tags[i].body), m, &err);
		CHECK(rc == tags[i].rc && (rc != 0 || (m->n == tags[i].n && m->skipped == tags[i].skipped &&
						       (!tags[i].first || strcmp(m->name[0], tags[i].first) == 0))),
		      "tags %zu: rc %d, %zu names, %zu skipped", i, rc, m->n, m->skipped);
		CHECK(rc == 0 || (strchr(err.msg, '\n') == NULL && strstr(err.msg, "Ollama")), "tags %zu: one line naming the fix", i);
	}
	ollama_parse_tags(tags_real, strlen(tags_real), m, &err);
	CHECK(ollama_models_has(m, "qwen3:8b") && ollama_models_has(m, "llama3.1") && ollama_models_has(m, "llama3.1:latest") &&
		      !ollama_models_has(m, "qwen3") && !ollama_models_has(m, "qwen3:14b") && !ollama_models_has(m, "llama3.1:8b"),
	      "installed: the name, or NAME:latest for a name without a tag");

	for (size_t i = 0; i < sizeof(shows) / sizeof(shows[0]); i++)
		CHECK(ollama_show_has_tools(shows[i].body, strlen(shows[i].body)) == shows[i].tools, "show %zu: tools %d", i, shows[i].tools);

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		struct pull_event ev;
		int rc = ollama_parse_pull_line(lines[i].line, strlen(lines[i].line), &ev);
		CHECK(rc == lines[i].rc && (rc != 0 || (strcmp(ev.status, lines[i].status) == 0 && strcmp(ev.error, lines[i].error) == 0 &&
							ev.total == lines[i].total && ev.completed == lines[i].completed)),
		      "pull line %zu: rc %d status '%s' error '%s' %lld/%lld", i, rc, ev.status, ev.error, ev.completed, ev.total);
	}

	static const char *const pull[] = {
		"{\"status\":\"pulling manifest\"}",
		"{\"status\":\"pulling aa\",\"digest\":\"sha256:aa\",\"total\":4700000000,\"completed\":0}",
		"{\"status\":\"pulling aa\",\"digest\":\"sha256:aa\",\"total\":4700000000,\"completed\":1000}",
		"{\"status\":\"pulling aa\",\"digest\":\"sha256:aa\",\"total\":4700000000,\"completed\":2350000000}",
		"{\"status\":\"pulling bb\",\"digest\":\"sha256:bb\",\"total\":100,\"completed\":100}",
		"{\"status\":\"pulling aa\",\"digest\":\"sha256:aa\",\"total\":4700000000,\"completed\":4700000000}",
		"{\"status\":\"verifying sha256 digest\"}",
		"{\"status\":\"success\"}",
	};
	show_all(false, pull, 8, out, sizeof(out), &v);
	CHECK(strcmp(out, "pulling manifest\n"
			  "pulling aa: 0% (0.0 GB of 4.7 GB)\n"
			  "pulling aa: 50% (2.4 GB of 4.7 GB)\n"
			  "pulling bb: 100% (0.0 GB of 0.0 GB)\n"
			  "pulling aa: 100% (4.7 GB of 4.7 GB)\n"
			  "verifying sha256 digest\nsuccess\n") == 0 && v.ok && !v.failed,
	      "off a terminal: a line per whole percent that changed, per layer; then success:\n%s", out);
	show_all(true, pull, 4, out, sizeof(out), &v);
	CHECK(strcmp(out, "pulling manifest\n"
			  "\rpulling aa [-------------------------]   0% 0.0 GB of 4.7 GB"
			  "\rpulling aa [-------------------------]   0% 0.0 GB of 4.7 GB"
			  "\rpulling aa [############-------------]  50% 2.4 GB of 4.7 GB\n") == 0 && !v.ok,
	      "on a terminal: one bar redrawn in place, ended by a newline; no success, no ok:\n%s", out);

	static const char *const failing[] = {
		"{\"status\":\"pulling aa\",\"total\":10,\"completed\":5}",
		"{\"error\":\"max retries exceeded\"}",
		"{\"status\":\"success\"}",
	};
	show_all(true, failing, 2, out, sizeof(out), &v);
	CHECK(strcmp(out, "\rpulling aa [############-------------]  50% 0.0 GB of 0.0 GB\nerror: max retries exceeded\n") == 0 && v.failed,
	      "an error ends the bar's line first, then says it:\n%s", out);
	show_all(false, failing, 3, out, sizeof(out), &v);
	CHECK(v.failed && v.ok, "an error, even before a success, is remembered (the caller fails)");

	static const char *const over[] = { "{\"status\":\"s\",\"total\":10,\"completed\":99}" };
	show_all(false, over, 1, out, sizeof(out), &v);
	CHECK(strcmp(out, "s: 100% (0.0 GB of 0.0 GB)\n") == 0, "completed beyond total shows 100%%: %s", out);
	free(m);
	return check_done("test_hostctl_ollama");
}
