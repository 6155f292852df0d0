#include "hostctl/classify.h"

#include <jansson.h>
#include <string.h>

#include "base/cli_names.h"

static const struct {
	const char *path;
	bool post;
	unsigned api;
} probes[PROBE_N] = {
	[PROBE_VERSION] = { "/api/version", false, CS_API_OLLAMA },
	[PROBE_MESSAGES] = { "/v1/messages", true, CS_API_MESSAGES },
	[PROBE_CHAT] = { "/v1/chat/completions", true, CS_API_CHAT },
	[PROBE_RESPONSES] = { "/v1/responses", true, CS_API_RESPONSES },
	[PROBE_GEMINI] = { "/v1beta/models", false, CS_API_GEMINI },
	[PROBE_CONTROL_POST] = { "/v1/cli-sandbox-no-such-route", true, 0 },
	[PROBE_CONTROL_GET] = { "/api/cli-sandbox-no-such-route", false, 0 },
};

const char *probe_path_of(enum probe_path p)
{
	return probes[p].path;
}

bool probe_is_post(enum probe_path p)
{
	return probes[p].post;
}

static bool is_string(json_t *o, const char *key, const char *want)
{
	json_t *v = json_object_get(o, key);

	return json_is_string(v) && (!want || strcmp(json_string_value(v), want) == 0);
}

static enum body_shape shape_of(json_t *o)
{
	json_t *error = json_object_get(o, "error");

	if (!json_is_object(o))
		return SHAPE_OTHER;
	if (is_string(o, "type", "error") && json_is_object(error))
		return SHAPE_ANTHROPIC_ERROR;
	if (json_is_object(error) && is_string(error, "message", NULL)) {
		if (json_is_integer(json_object_get(error, "code")) && is_string(error, "status", NULL))
			return SHAPE_GOOGLE_ERROR;
		return SHAPE_OPENAI_ERROR;
	}
	if (json_is_string(error))
		return SHAPE_STRING_ERROR;
	if (is_string(o, "object", "error") && is_string(o, "message", NULL))
		return SHAPE_VLLM_ERROR;
	if (is_string(o, "version", NULL) && json_object_size(o) <= 2)
		return SHAPE_OLLAMA_VERSION;
	if (is_string(o, "type", "message"))
		return SHAPE_MESSAGE;
	if (is_string(o, "object", "chat.completion"))
		return SHAPE_CHAT_COMPLETION;
	if (is_string(o, "object", "response"))
		return SHAPE_RESPONSE;
	if (json_is_array(json_object_get(o, "models")))
		return SHAPE_GEMINI_MODELS;
	return SHAPE_OTHER;
}

enum body_shape classify_body(const char *body, size_t len)
{
	json_error_t jerr;
	json_t *o;
	enum body_shape s;

	if (!body || len == 0 || len > (1u << 20))
		return SHAPE_OTHER;
	o = json_loadb(body, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!o)
		return SHAPE_OTHER;
	s = shape_of(o);
	json_decref(o);
	return s;
}

/* A route that refuses our empty request, or answers it. */
static bool route_status(int status)
{
	return (status >= 200 && status < 300) || (status >= 400 && status < 500 && status != 404 && status != 405);
}

bool answer_speaks(enum probe_path path, int status, const char *body, size_t len)
{
	enum body_shape s;

	if (!route_status(status))
		return false;
	s = classify_body(body, len);
	switch (path) {
	case PROBE_VERSION:
		return status == 200 && s == SHAPE_OLLAMA_VERSION;
	case PROBE_MESSAGES:
		/* Anthropic's own shape; a server whose every error is in the
		 * OpenAI shape (llama-server) counts when it refused the
		 * request's content (400, 422), not on a key refusal. */
		return s == SHAPE_ANTHROPIC_ERROR || s == SHAPE_MESSAGE ||
		       ((s == SHAPE_OPENAI_ERROR || s == SHAPE_VLLM_ERROR) && (status == 400 || status == 422));
	case PROBE_CHAT:
		return s == SHAPE_OPENAI_ERROR || s == SHAPE_VLLM_ERROR || s == SHAPE_CHAT_COMPLETION;
	case PROBE_RESPONSES:
		return s == SHAPE_OPENAI_ERROR || s == SHAPE_VLLM_ERROR || s == SHAPE_RESPONSE;
	case PROBE_GEMINI:
		return (status == 200 && s == SHAPE_GEMINI_MODELS) ||
		       (s == SHAPE_GOOGLE_ERROR && (status == 400 || status == 401 || status == 403));
	case PROBE_CONTROL_POST:
	case PROBE_CONTROL_GET:
	case PROBE_N:
		break;
	}
	return false;
}

/* Two answers a client cannot tell apart by status and shape. */
static bool same_answer(const struct probe_answer *x, const struct probe_answer *y)
{
	return x->status == y->status && classify_body(x->body, x->len) == classify_body(y->body, y->len);
}

enum verdict classify_endpoint(const struct probe_answer a[PROBE_N], unsigned *speaks)
{
	bool any = false, control_answers = false;

	*speaks = 0;
	for (int p = 0; p < PROBE_N; p++)
		any = any || a[p].status != 0;
	if (!any)
		return VERDICT_SILENT;
	/* A control that gets anything but "no such route" shows a server that
	 * answers before (or instead of) routing: only what differs from it
	 * proves a route. */
	control_answers = route_status(a[PROBE_CONTROL_POST].status) || route_status(a[PROBE_CONTROL_GET].status);
	for (int p = 0; p < PROBE_CONTROL_POST; p++) {
		const struct probe_answer *control = &a[probes[p].post ? PROBE_CONTROL_POST : PROBE_CONTROL_GET];

		if (!answer_speaks((enum probe_path)p, a[p].status, a[p].body, a[p].len))
			continue;
		if (route_status(control->status) && same_answer(&a[p], control))
			continue;  /* what any path gets: it proves no route */
		*speaks |= probes[p].api;
	}
	if (*speaks)
		return VERDICT_OK;
	return control_answers ? VERDICT_SAME_EVERYWHERE : VERDICT_NO_API;
}

const char *type_of_speaks(unsigned speaks)
{
	if (speaks & CS_API_OLLAMA)
		return "ollama";
	if (speaks == CS_API_GEMINI)
		return "gemini";
	if ((speaks & CS_API_MESSAGES) && !(speaks & (CS_API_CHAT | CS_API_RESPONSES)))
		return "anthropic";
	return "openai";
}
