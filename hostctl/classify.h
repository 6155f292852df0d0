/* What an endpoint speaks, decided from its answers alone: a pure function
 * of (path, HTTP status, body), so it is unit tested with real servers'
 * bodies and fuzzed.  The probe (probe.c) only fetches the answers.
 *
 * An API counts only when its path answers with that API's own shape (an
 * error in the API's format refuses our empty request: the route exists
 * and parsed it), never for an answer any path would get.  A control path
 * no server has tells the two apart: vLLM with --api-key answers 401 to
 * every /v1 path, LM Studio 200 with {"error":"Unexpected endpoint..."}. */
#ifndef CLI_SANDBOX_HOSTCTL_CLASSIFY_H
#define CLI_SANDBOX_HOSTCTL_CLASSIFY_H

#include <stdbool.h>
#include <stddef.h>

enum probe_path {
	PROBE_VERSION,       /* GET  /api/version          (Ollama's native API) */
	PROBE_MESSAGES,      /* POST /v1/messages          {} */
	PROBE_CHAT,          /* POST /v1/chat/completions  {} */
	PROBE_RESPONSES,     /* POST /v1/responses         {} */
	PROBE_GEMINI,        /* GET  /v1beta/models        (the Gemini API) */
	PROBE_CONTROL_POST,  /* POST /v1/cli-sandbox-no-such-route {} */
	PROBE_CONTROL_GET,   /* GET  /api/cli-sandbox-no-such-route */
	PROBE_N
};

/* The shape of one answer's body. */
enum body_shape {
	SHAPE_OTHER,             /* not JSON, or no shape below */
	SHAPE_ANTHROPIC_ERROR,   /* {"type":"error","error":{...}} */
	SHAPE_OPENAI_ERROR,      /* {"error":{"message":...}} */
	SHAPE_GOOGLE_ERROR,      /* {"error":{"code":N,"message":...,"status":"..."}} */
	SHAPE_VLLM_ERROR,        /* {"object":"error","message":...} (older vLLM) */
	SHAPE_STRING_ERROR,      /* {"error":"..."} (LM Studio's unknown route, Ollama native) */
	SHAPE_OLLAMA_VERSION,    /* {"version":"0.14.0"} */
	SHAPE_MESSAGE,           /* {"type":"message",...} */
	SHAPE_CHAT_COMPLETION,   /* {"object":"chat.completion",...} */
	SHAPE_RESPONSE,          /* {"object":"response",...} */
	SHAPE_GEMINI_MODELS,     /* {"models":[...]} */
};

struct probe_answer {
	int status;        /* HTTP status; 0: no answer */
	const char *body;  /* may be NULL when len is 0 */
	size_t len;
};

enum verdict {
	VERDICT_OK,              /* speaks holds at least one API */
	VERDICT_SILENT,          /* nothing answered HTTP */
	VERDICT_SAME_EVERYWHERE, /* every path answers like the control: pass --key-env or --type */
	VERDICT_NO_API,          /* it answers, but none of the APIs */
};

enum body_shape classify_body(const char *body, size_t len);

/* True when the answer at that path has its API's shape (the control
 * paths never speak). */
bool answer_speaks(enum probe_path path, int status, const char *body, size_t len);

/* The APIs of an endpoint from the answers of every path (indexed by
 * enum probe_path), into *speaks (enum cs_api bits). */
enum verdict classify_endpoint(const struct probe_answer a[PROBE_N], unsigned *speaks);

/* The type an endpoint is recorded with, from what it speaks. */
const char *type_of_speaks(unsigned speaks);

/* The path of a probe, relative to the server's root, and its method. */
const char *probe_path_of(enum probe_path p);
bool probe_is_post(enum probe_path p);

#endif
