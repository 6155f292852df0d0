#include "hostctl/ollama_http.h"

#include <curl/curl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define ANSWER_MAX (4 * 1024 * 1024)
#define LINE_MAX_BYTES (64 * 1024)

/* Keeps the first ANSWER_MAX bytes: a server that streams forever cannot fill memory. */
static size_t keep(char *data, size_t size, size_t n, void *arg)
{
	struct http_answer *a = arg;
	size_t take = size * n;
	char *grown;

	if (take > ANSWER_MAX - a->len)
		take = ANSWER_MAX - a->len;
	if (take == 0)
		return size * n;
	grown = realloc(a->body, a->len + take + 1);
	if (!grown)
		return 0;  /* out of memory: libcurl stops with a write error */
	a->body = grown;
	memcpy(a->body + a->len, data, take);
	a->len += take;
	a->body[a->len] = '\0';
	return size * n;
}

static CURL *easy(const char *url, long max_seconds)
{
	CURL *c = curl_easy_init();

	if (!c)
		return NULL;
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 3000L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, max_seconds);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "cli-sandbox-ctl/" CLI_SANDBOX_VERSION);
	return c;
}

static int no_answer(const char *base, struct cs_error *err)
{
	return cs_fail(err, CS_EXIT_CONFIG,
		       "Ollama at %s does not answer: start it (ollama serve; OLLAMA_HOST=0.0.0.0 for containers) and check 'cli-sandbox endpoints list'", base);
}

int ollama_request(const char *base, const char *path, const char *body, struct http_answer *out, struct cs_error *err)
{
	struct curl_slist *h = curl_slist_append(NULL, "content-type: application/json");
	char url[1200];
	CURL *c;
	CURLcode rc;

	memset(out, 0, sizeof(*out));
	snprintf(url, sizeof(url), "%s%s", base, path);
	c = easy(url, 10);
	if (!c || !h) {
		curl_slist_free_all(h);
		if (c)
			curl_easy_cleanup(c);
		return cs_fail(err, CS_EXIT_OSERR, "cannot start libcurl (out of memory)");
	}
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, keep);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
	if (body)
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	rc = curl_easy_perform(c);
	if (rc == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &out->status);
	curl_easy_cleanup(c);
	curl_slist_free_all(h);
	if (rc != CURLE_OK) {
		free(out->body);
		memset(out, 0, sizeof(*out));
		return no_answer(base, err);
	}
	if (!out->body && !(out->body = calloc(1, 1)))
		return cs_fail(err, CS_EXIT_OSERR, "out of memory");
	return 0;
}

/* The stream cut into lines; a line longer than LINE_MAX_BYTES is cut there. */
struct lines {
	char buf[LINE_MAX_BYTES];
	size_t len;
	void (*on_line)(const char *line, size_t len, void *arg);
	void *arg;
};

static size_t split(char *data, size_t size, size_t n, void *arg)
{
	struct lines *l = arg;

	for (size_t i = 0; i < size * n; i++) {
		if (data[i] == '\n' || l->len == sizeof(l->buf)) {
			if (l->len)
				l->on_line(l->buf, l->len, l->arg);
			l->len = 0;
			if (data[i] == '\n')
				continue;
		}
		l->buf[l->len++] = data[i];
	}
	return size * n;
}

int ollama_pull(const char *base, const char *model, void (*on_line)(const char *line, size_t len, void *arg), void *arg,
		long *status, struct cs_error *err)
{
	struct curl_slist *h = curl_slist_append(NULL, "content-type: application/json");
	struct lines *l = calloc(1, sizeof(*l));
	json_t *req = json_pack("{s:s, s:b}", "model", model, "stream", 1);
	char url[1200], *body = req ? json_dumps(req, JSON_COMPACT) : NULL;
	CURL *c;
	CURLcode rc;

	json_decref(req);
	snprintf(url, sizeof(url), "%s/api/pull", base);
	c = easy(url, 7200);
	*status = 0;
	if (!c || !h || !l || !body) {
		curl_slist_free_all(h);
		free(l);
		free(body);
		if (c)
			curl_easy_cleanup(c);
		return cs_fail(err, CS_EXIT_OSERR, "cannot start libcurl (out of memory)");
	}
	l->on_line = on_line;
	l->arg = arg;
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, split);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, l);
	rc = curl_easy_perform(c);
	if (l->len)
		on_line(l->buf, l->len, arg);  /* a last line without its newline */
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
	curl_easy_cleanup(c);
	curl_slist_free_all(h);
	free(l);
	free(body);
	if (rc != CURLE_OK && *status == 0)
		return no_answer(base, err);
	if (rc != CURLE_OK)
		return cs_fail(err, CS_EXIT_CONFIG, "the pull from Ollama at %s stopped: %s; run it again (Ollama resumes it)", base, curl_easy_strerror(rc));
	return 0;
}
