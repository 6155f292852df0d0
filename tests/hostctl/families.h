/* The server families' answers to the probe's paths, as the real servers
 * send them (status and body), for the classifier's tests.  A path a
 * family does not serve gets that family's own "no such route" answer.
 * mock_server.py serves the same answers over HTTP. */
#ifndef CLI_SANDBOX_TEST_FAMILIES_H
#define CLI_SANDBOX_TEST_FAMILIES_H

#include "base/cli_names.h"
#include "hostctl/classify.h"

struct family_answer {
	int status;
	const char *body;
};

struct family {
	const char *name;
	struct family_answer a[PROBE_N];
	unsigned speaks;           /* what the classifier must find */
	enum verdict verdict;
};

#define OLLAMA_404 { 404, "404 page not found" }
#define OAI_400(msg) { 400, "{\"error\":{\"message\":\"" msg "\",\"type\":\"invalid_request_error\",\"param\":null,\"code\":null}}" }
#define ANT_400 { 400, "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"model: Field required\"}}" }
#define LLAMA_404 { 404, "{\"error\":{\"code\":404,\"message\":\"File Not Found\",\"type\":\"not_found_error\"}}" }
#define LLAMA_400 { 400, "{\"error\":{\"code\":400,\"message\":\"\\\"messages\\\" is required\",\"type\":\"invalid_request_error\"}}" }
#define FASTAPI_404 { 404, "{\"detail\":\"Not Found\"}" }
#define VLLM_401 { 401, "{\"error\":\"Unauthorized\"}" }
#define VLLM_400 { 400, "{\"error\":{\"message\":\"Field required: messages\",\"type\":\"BadRequestError\",\"param\":null,\"code\":400}}" }
#define LMS_ANY(path) { 200, "{\"error\":\"Unexpected endpoint or method. (" path ")\"}" }
#define OPENAI_401 { 401, "{\"error\":{\"message\":\"You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).\",\"type\":\"invalid_request_error\",\"param\":null,\"code\":null}}" }
#define OPENAI_404(path) { 404, "{\"error\":{\"message\":\"Invalid URL (" path ")\",\"type\":\"invalid_request_error\",\"param\":null,\"code\":null}}" }
#define ANTHROPIC_401 { 401, "{\"type\":\"error\",\"error\":{\"type\":\"authentication_error\",\"message\":\"x-api-key header is required\"},\"request_id\":\"req_011CUx\"}" }
#define ANTHROPIC_404 { 404, "{\"type\":\"error\",\"error\":{\"type\":\"not_found_error\",\"message\":\"Not Found\"},\"request_id\":\"req_011CUy\"}" }
#define GOOGLE_HTML_404 { 404, "<!DOCTYPE html><html lang=en><title>Error 404 (Not Found)!!1</title>" }
#define GEMINI_403 { 403, "{\"error\":{\"code\":403,\"message\":\"Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.\",\"status\":\"PERMISSION_DENIED\"}}" }

static const struct family families[] = {
	{ "ollama-0.12", { [PROBE_VERSION] = { 200, "{\"version\":\"0.12.6\"}" }, [PROBE_MESSAGES] = OLLAMA_404,
	  [PROBE_CHAT] = OAI_400("[] is too short - 'messages'"), [PROBE_RESPONSES] = OLLAMA_404, [PROBE_GEMINI] = OLLAMA_404,
	  [PROBE_CONTROL_POST] = OLLAMA_404, [PROBE_CONTROL_GET] = OLLAMA_404 },
	  CS_API_OLLAMA | CS_API_CHAT, VERDICT_OK },
	{ "ollama-0.13.3", { [PROBE_VERSION] = { 200, "{\"version\":\"0.13.3\"}" }, [PROBE_MESSAGES] = OLLAMA_404,
	  [PROBE_CHAT] = OAI_400("[] is too short - 'messages'"), [PROBE_RESPONSES] = OAI_400("model is required"),
	  [PROBE_GEMINI] = OLLAMA_404, [PROBE_CONTROL_POST] = OLLAMA_404, [PROBE_CONTROL_GET] = OLLAMA_404 },
	  CS_API_OLLAMA | CS_API_CHAT | CS_API_RESPONSES, VERDICT_OK },
	{ "ollama-0.14", { [PROBE_VERSION] = { 200, "{\"version\":\"0.14.1\"}" }, [PROBE_MESSAGES] = ANT_400,
	  [PROBE_CHAT] = OAI_400("[] is too short - 'messages'"), [PROBE_RESPONSES] = OAI_400("model is required"),
	  [PROBE_GEMINI] = OLLAMA_404, [PROBE_CONTROL_POST] = OLLAMA_404, [PROBE_CONTROL_GET] = OLLAMA_404 },
	  CS_API_OLLAMA | CS_API_MESSAGES | CS_API_CHAT | CS_API_RESPONSES, VERDICT_OK },
	/* vLLM --api-key without the key: 401 before routing on every /v1 path */
	{ "vllm-keyed", { [PROBE_VERSION] = FASTAPI_404, [PROBE_MESSAGES] = VLLM_401, [PROBE_CHAT] = VLLM_401,
	  [PROBE_RESPONSES] = VLLM_401, [PROBE_GEMINI] = FASTAPI_404, [PROBE_CONTROL_POST] = VLLM_401,
	  [PROBE_CONTROL_GET] = FASTAPI_404 },
	  0, VERDICT_SAME_EVERYWHERE },
	/* the same server given the key (--key-env) */
	{ "vllm-with-key", { [PROBE_VERSION] = FASTAPI_404, [PROBE_MESSAGES] = ANT_400, [PROBE_CHAT] = VLLM_400,
	  [PROBE_RESPONSES] = VLLM_400, [PROBE_GEMINI] = FASTAPI_404, [PROBE_CONTROL_POST] = FASTAPI_404,
	  [PROBE_CONTROL_GET] = FASTAPI_404 },
	  CS_API_MESSAGES | CS_API_CHAT | CS_API_RESPONSES, VERDICT_OK },
	{ "llama-server", { [PROBE_VERSION] = LLAMA_404, [PROBE_MESSAGES] = LLAMA_400, [PROBE_CHAT] = LLAMA_400,
	  [PROBE_RESPONSES] = LLAMA_404, [PROBE_GEMINI] = LLAMA_404, [PROBE_CONTROL_POST] = LLAMA_404,
	  [PROBE_CONTROL_GET] = LLAMA_404 },
	  CS_API_MESSAGES | CS_API_CHAT, VERDICT_OK },
	/* LM Studio: 200 with an error string on every path it lacks */
	{ "lm-studio", { [PROBE_VERSION] = LMS_ANY("GET /api/version"), [PROBE_MESSAGES] = OAI_400("'messages' field is required"),
	  [PROBE_CHAT] = OAI_400("'messages' field is required"), [PROBE_RESPONSES] = OAI_400("'input' is required"),
	  [PROBE_GEMINI] = LMS_ANY("GET /v1beta/models"), [PROBE_CONTROL_POST] = LMS_ANY("POST /v1/cli-sandbox-no-such-route"),
	  [PROBE_CONTROL_GET] = LMS_ANY("GET /api/cli-sandbox-no-such-route") },
	  CS_API_MESSAGES | CS_API_CHAT | CS_API_RESPONSES, VERDICT_OK },
	/* an older LM Studio without Messages: its 200 there is the catch-all */
	{ "lm-studio-old", { [PROBE_VERSION] = LMS_ANY("GET /api/version"), [PROBE_MESSAGES] = LMS_ANY("POST /v1/messages"),
	  [PROBE_CHAT] = OAI_400("'messages' field is required"), [PROBE_RESPONSES] = LMS_ANY("POST /v1/responses"),
	  [PROBE_GEMINI] = LMS_ANY("GET /v1beta/models"), [PROBE_CONTROL_POST] = LMS_ANY("POST /v1/cli-sandbox-no-such-route"),
	  [PROBE_CONTROL_GET] = LMS_ANY("GET /api/cli-sandbox-no-such-route") },
	  CS_API_CHAT, VERDICT_OK },
	{ "openai-no-key", { [PROBE_VERSION] = OPENAI_401, [PROBE_MESSAGES] = OPENAI_401, [PROBE_CHAT] = OPENAI_401,
	  [PROBE_RESPONSES] = OPENAI_401, [PROBE_GEMINI] = OPENAI_401, [PROBE_CONTROL_POST] = OPENAI_401,
	  [PROBE_CONTROL_GET] = OPENAI_401 },
	  0, VERDICT_SAME_EVERYWHERE },
	{ "openai", { [PROBE_VERSION] = OPENAI_404("GET /api/version"), [PROBE_MESSAGES] = OPENAI_404("POST /v1/messages"),
	  [PROBE_CHAT] = OAI_400("you must provide a model parameter"), [PROBE_RESPONSES] = OAI_400("Missing required parameter: 'model'."),
	  [PROBE_GEMINI] = OPENAI_404("GET /v1beta/models"), [PROBE_CONTROL_POST] = OPENAI_404("POST /v1/cli-sandbox-no-such-route"),
	  [PROBE_CONTROL_GET] = OPENAI_404("GET /api/cli-sandbox-no-such-route") },
	  CS_API_CHAT | CS_API_RESPONSES, VERDICT_OK },
	/* a Chat-Completions-only server (an older vLLM or a LiteLLM-style proxy) */
	{ "chat-only", { [PROBE_VERSION] = FASTAPI_404, [PROBE_MESSAGES] = FASTAPI_404, [PROBE_CHAT] = VLLM_400,
	  [PROBE_RESPONSES] = FASTAPI_404, [PROBE_GEMINI] = FASTAPI_404, [PROBE_CONTROL_POST] = FASTAPI_404,
	  [PROBE_CONTROL_GET] = FASTAPI_404 },
	  CS_API_CHAT, VERDICT_OK },
	{ "anthropic", { [PROBE_VERSION] = ANTHROPIC_404, [PROBE_MESSAGES] = ANTHROPIC_401, [PROBE_CHAT] = ANTHROPIC_401,
	  [PROBE_RESPONSES] = ANTHROPIC_404, [PROBE_GEMINI] = ANTHROPIC_404, [PROBE_CONTROL_POST] = ANTHROPIC_404,
	  [PROBE_CONTROL_GET] = ANTHROPIC_404 },
	  CS_API_MESSAGES, VERDICT_OK },
	{ "gemini", { [PROBE_VERSION] = GOOGLE_HTML_404, [PROBE_MESSAGES] = GOOGLE_HTML_404, [PROBE_CHAT] = GOOGLE_HTML_404,
	  [PROBE_RESPONSES] = GOOGLE_HTML_404, [PROBE_GEMINI] = GEMINI_403, [PROBE_CONTROL_POST] = GOOGLE_HTML_404,
	  [PROBE_CONTROL_GET] = GOOGLE_HTML_404 },
	  CS_API_GEMINI, VERDICT_OK },
	/* a web server that is no model server */
	{ "nginx", { [PROBE_VERSION] = { 404, "<html><center><h1>404 Not Found</h1></center></html>" },
	  [PROBE_MESSAGES] = { 405, "<html><center><h1>405 Not Allowed</h1></center></html>" },
	  [PROBE_CHAT] = { 405, "<html><center><h1>405 Not Allowed</h1></center></html>" },
	  [PROBE_RESPONSES] = { 405, "<html>405</html>" }, [PROBE_GEMINI] = { 404, "<html>404</html>" },
	  [PROBE_CONTROL_POST] = { 405, "<html>405</html>" }, [PROBE_CONTROL_GET] = { 404, "<html>404</html>" } },
	  0, VERDICT_NO_API },
	{ "silent", { { 0, NULL } }, 0, VERDICT_SILENT },
};

#endif
