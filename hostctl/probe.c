#include "hostctl/probe.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BODY_MAX (64 * 1024)

struct body {
	char buf[BODY_MAX];
	size_t len;
};

/* Keeps the first BODY_MAX bytes: a shape is in the first bytes of any
 * error, and a server that streams forever cannot fill memory. */
static size_t keep(char *data, size_t size, size_t n, void *arg)
{
	struct body *b = arg;
	size_t take = size * n;

	if (take > BODY_MAX - b->len)
		take = BODY_MAX - b->len;
	memcpy(b->buf + b->len, data, take);
	b->len += take;
	return size * n;
}

void probe_root(const char *url, char *out, size_t len)
{
	size_t n;

	snprintf(out, len, "%s", url);
	n = strlen(out);
	while (n > 0 && out[n - 1] == '/')
		out[--n] = '\0';
	if (n >= 3 && strcmp(out + n - 3, "/v1") == 0)
		out[n - 3] = '\0';
}

static struct curl_slist *headers_for(enum probe_path p, const char *key)
{
	struct curl_slist *h = curl_slist_append(NULL, "content-type: application/json");
	char line[1024];

	if (!key || !h)
		return h;
	if (p == PROBE_GEMINI) {
		snprintf(line, sizeof(line), "x-goog-api-key: %s", key);
		h = curl_slist_append(h, line);
	} else {
		snprintf(line, sizeof(line), "x-api-key: %s", key);
		h = curl_slist_append(h, line);
		snprintf(line, sizeof(line), "Authorization: Bearer %s", key);
		if (h)
			h = curl_slist_append(h, line);
	}
	explicit_bzero(line, sizeof(line));
	return h;
}

int probe_endpoint(const char *url, const char *key, unsigned *speaks, enum verdict *verdict, struct cs_error *err)
{
	struct probe_answer answers[PROBE_N] = { { 0 } };
	struct body *bodies;
	char root[1024], full[1200];
	CURL *c;
	bool reachable = true;

	if (key && (strlen(key) > 900 || strpbrk(key, "\r\n")))
		return cs_fail(err, CS_EXIT_CONFIG, "the key's variable holds a newline or more than 900 bytes; set it to the key alone");
	bodies = calloc(PROBE_N, sizeof(*bodies));
	c = curl_easy_init();
	if (!bodies || !c) {
		free(bodies);
		if (c)
			curl_easy_cleanup(c);
		return cs_fail(err, CS_EXIT_OSERR, "cannot start libcurl (out of memory)");
	}
	probe_root(url, root, sizeof(root));
	for (int p = 0; p < PROBE_N && reachable; p++) {
		struct curl_slist *h = headers_for((enum probe_path)p, key);
		long status = 0;
		CURLcode rc;

		snprintf(full, sizeof(full), "%s%s", root, probe_path_of((enum probe_path)p));
		curl_easy_reset(c);
		curl_easy_setopt(c, CURLOPT_URL, full);
		curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
		curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
		curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
		curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
		curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 3000L);
		curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 8000L);
		curl_easy_setopt(c, CURLOPT_USERAGENT, "cli-sandbox-ctl/" CLI_SANDBOX_VERSION);
		curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
		curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, keep);
		curl_easy_setopt(c, CURLOPT_WRITEDATA, &bodies[p]);
		if (probe_is_post((enum probe_path)p))
			curl_easy_setopt(c, CURLOPT_POSTFIELDS, "{}");
		rc = curl_easy_perform(c);
		curl_slist_free_all(h);
		if (rc == CURLE_OK || rc == CURLE_WRITE_ERROR) {
			curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
			answers[p] = (struct probe_answer){ (int)status, bodies[p].buf, bodies[p].len };
		} else if (rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST || rc == CURLE_OPERATION_TIMEDOUT) {
			/* Nobody there: the other paths would wait as long again. */
			reachable = false;
		}
	}
	curl_easy_cleanup(c);
	*verdict = classify_endpoint(answers, speaks);
	free(bodies);
	return 0;
}
