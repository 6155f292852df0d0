/* The probe's classifier (hostctl/classify.h) against every server
 * family's real answers (families.h): what each speaks, and the verdict
 * for the servers that answer every path alike. */
#include <string.h>

#include "check.h"
#include "families.h"
#include "hostctl/api.h"

/* A literal and its length. */
#define S(lit) lit, sizeof(lit) - 1

int main(void)
{
	for (size_t f = 0; f < sizeof(families) / sizeof(families[0]); f++) {
		const struct family *fam = &families[f];
		struct probe_answer a[PROBE_N];
		unsigned speaks = ~0u;
		enum verdict v;
		char got[128], want[128];

		for (int p = 0; p < PROBE_N; p++)
			a[p] = (struct probe_answer){ fam->a[p].status, fam->a[p].body, fam->a[p].body ? strlen(fam->a[p].body) : 0 };
		v = classify_endpoint(a, &speaks);
		CHECK(v == fam->verdict, "%s: verdict %d (want %d)", fam->name, (int)v, (int)fam->verdict);
		CHECK(speaks == fam->speaks, "%s: speaks %s (want %s)", fam->name, api_format_list(speaks, got, sizeof(got)),
		      api_format_list(fam->speaks, want, sizeof(want)));
	}

	/* the shapes themselves */
	CHECK(classify_body(S("{\"type\":\"error\",\"error\":{\"type\":\"x\",\"message\":\"m\"}}")) == SHAPE_ANTHROPIC_ERROR,
	      "Anthropic's error shape");
	CHECK(classify_body(S("{\"error\":\"Unexpected endpoint or method. (GET /)\"}")) == SHAPE_STRING_ERROR,
	      "LM Studio's catch-all is no API's shape");
	CHECK(classify_body(S("{\"version\":\"0.14.0\"}")) == SHAPE_OLLAMA_VERSION, "Ollama's version");
	CHECK(classify_body(S("{\"version\":\"0.14.0\"")) == SHAPE_OTHER, "cut JSON is no shape");
	CHECK(classify_body(S("{\"error\":{\"message\":\"a\"},\"error\":{\"message\":\"b\"}}")) == SHAPE_OTHER,
	      "duplicate keys are refused, not guessed at");
	/* the pure function of (path, status, body) */
	CHECK(!answer_speaks(PROBE_CHAT, 404, S("{\"error\":{\"message\":\"Invalid URL\"}}")), "404 never speaks");
	CHECK(!answer_speaks(PROBE_CHAT, 500, S("{\"error\":{\"message\":\"boom\"}}")), "5xx never speaks");
	CHECK(answer_speaks(PROBE_MESSAGES, 401, S("{\"type\":\"error\",\"error\":{\"type\":\"authentication_error\",\"message\":\"m\"}}")),
	      "Anthropic's 401 shows the Messages route");
	CHECK(!answer_speaks(PROBE_MESSAGES, 401, S("{\"error\":{\"message\":\"no key\"}}")),
	      "an OpenAI-shaped key refusal on /v1/messages proves nothing");
	CHECK(!answer_speaks(PROBE_VERSION, 200, S("{\"error\":\"Unexpected endpoint or method. (GET /api/version)\"}")),
	      "LM Studio's 200 at /api/version is not Ollama");
	CHECK(!answer_speaks(PROBE_CONTROL_POST, 400, S("{\"error\":{\"message\":\"x\"}}")), "the control path never speaks");
	CHECK(strcmp(type_of_speaks(CS_API_OLLAMA | CS_API_CHAT), "ollama") == 0 && strcmp(type_of_speaks(CS_API_MESSAGES), "anthropic") == 0 &&
		      strcmp(type_of_speaks(CS_API_GEMINI), "gemini") == 0 && strcmp(type_of_speaks(CS_API_CHAT | CS_API_RESPONSES), "openai") == 0,
	      "the recorded type follows what it speaks");
	return check_done("test_hostctl_classify");
}
