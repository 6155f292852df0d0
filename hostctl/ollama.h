/* Ollama's native API as this program reads it: the answers of GET
 * /api/tags and POST /api/show, and the NDJSON lines POST /api/pull streams
 * ({"status":…,"digest":…,"total":N,"completed":N} or {"error":…}).  Pure
 * functions of the bytes, parsed with jansson, unit tested and fuzzed; the
 * HTTP is ollama_http.h's.  A server's words reach the screen only through
 * here: model names held to validate.h's rule, every other string to
 * printable ASCII (an escape sequence in a status would drive the terminal). */
#ifndef CLI_SANDBOX_HOSTCTL_OLLAMA_H
#define CLI_SANDBOX_HOSTCTL_OLLAMA_H

#include <stdbool.h>
#include <stddef.h>

#include "base/status.h"
#include "hostctl/validate.h"

#define OLLAMA_MODELS_MAX 512
#define OLLAMA_TEXT_MAX 160

struct ollama_models {
	size_t n;
	size_t skipped; /* names outside the model rule: never printed nor used */
	char name[OLLAMA_MODELS_MAX][EP_MODEL_MAX + 1];
};

/* {"models":[{"name":"qwen3:8b",…},…]} into out (in the server's order). */
int ollama_parse_tags(const char *body, size_t len, struct ollama_models *out, struct cs_error *err);

/* MODEL is installed: its name, or MODEL:latest for a name without a tag. */
bool ollama_models_has(const struct ollama_models *m, const char *model);

/* /api/show's answer lists "tools" among its "capabilities". */
bool ollama_show_has_tools(const char *body, size_t len);

/* One line of /api/pull's stream. */
struct pull_event {
	char status[OLLAMA_TEXT_MAX];
	char error[OLLAMA_TEXT_MAX * 2];  /* "" unless the server reported one */
	long long total, completed;       /* -1 when absent */
};

/* Parses one line (without its newline); -1 when it is not a JSON object. */
int ollama_parse_pull_line(const char *line, size_t len, struct pull_event *ev);

/* What a pull shows: on a terminal one bar redrawn in place per layer
 * ("\r<status> [#####----] 40% 1.9 GB of 4.7 GB"), otherwise a plain line
 * per whole percent that changed, per status; lines without progress as
 * they come.  The caller prints what pull_show writes. */
#define PULL_STATUSES 16
struct pull_view {
	bool tty;
	bool bar_open;    /* a bar is on the line: the next plain line ends it first */
	bool ok;          /* "success" was seen */
	bool failed;      /* an error was seen */
	size_t n;
	char status[PULL_STATUSES][OLLAMA_TEXT_MAX];
	int pct[PULL_STATUSES];
};

/* Writes what ev shows (possibly "") into out. */
void pull_show(struct pull_view *v, const struct pull_event *ev, char *out, size_t len);
/* The end of the stream: the newline that closes an open bar (or ""). */
void pull_end(struct pull_view *v, char *out, size_t len);

#endif
