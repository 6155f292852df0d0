/* Ollama's native API over HTTP (libcurl): the same rules as the probe's
 * requests (no proxy, no redirect followed, http and https only, 3 s to
 * connect), bounded answers, and the pull's NDJSON stream handed over one
 * line at a time.  base is the server's root (probe_root). */
#ifndef CLI_SANDBOX_HOSTCTL_OLLAMA_HTTP_H
#define CLI_SANDBOX_HOSTCTL_OLLAMA_HTTP_H

#include <stddef.h>

#include "base/status.h"

struct http_answer {
	long status;  /* 0: no answer */
	char *body;   /* NUL-terminated, at most 4 MiB kept; free() it */
	size_t len;
};

/* GET base+path (body NULL) or POST body as JSON; 10 s at most. -1 with err
 * when the server does not answer (err names base and the fix). */
int ollama_request(const char *base, const char *path, const char *body, struct http_answer *out, struct cs_error *err);

/* POST base/api/pull {"model":model,"stream":true}; on_line gets each line
 * (without its newline) as it arrives; two hours at most.  -1 with err when
 * the server does not answer; the HTTP status in *status. */
int ollama_pull(const char *base, const char *model, void (*on_line)(const char *line, size_t len, void *arg), void *arg,
		long *status, struct cs_error *err);

#endif
