/* The plan matrix (hostctl/plan.h): every CLI x every endpoint family x
 * keys out (the default) and in.  One row per CLI and family: the route
 * with keys out and what the CLI speaks on the wire; keys in turns broker
 * into direct (the key then in the sandbox) and keeps translation behind
 * the broker.  Then the runner's details: keyless Ollama, the key's form and
 * variables, the CLIs' own settings, a URL taken as is. */
#include <string.h>

#include "check.h"
#include "hostctl/api.h"
#include "hostctl/plan.h"
#include "hostctl/plan_format.h"

#define M CS_API_MESSAGES
#define C CS_API_CHAT
#define R CS_API_RESPONSES
#define O CS_API_OLLAMA
#define G CS_API_GEMINI

struct fam {
	const char *name, *url, *type;
	unsigned speaks;
	bool has_speaks;
};

static const struct fam fams[] = {
	{ "anthropic-api", "https://api.anthropic.com", "anthropic", M, true },
	{ "ollama-0.12", "http://192.168.1.10:11434", "ollama", O | C, true },
	{ "ollama-0.13.3", "http://192.168.1.10:11434", "ollama", O | C | R, true },
	{ "ollama-0.14", "http://192.168.1.10:11434", "ollama", O | M | C | R, true },
	{ "vllm", "http://10.0.0.5:8000/v1", "openai", M | C | R, true },
	{ "llama-server", "http://10.0.0.6:8080", "openai", M | C, true },
	{ "lm-studio", "http://10.0.0.7:1234/v1", "openai", M | C | R, true },
	{ "openai", "https://api.openai.com/v1", "openai", C | R, true },
	{ "chat-only", "http://10.0.0.8:4000/v1", "openai", C, true },
	{ "responses-only", "http://10.0.0.11:8000/v1", "openai", R, true },
	{ "gemini", "https://generativelanguage.googleapis.com", "gemini", G, true },
	{ "unknown", "http://10.0.0.9:4000", "", 0, false },  /* an older NAME URL line */
};

/* b: broker, t: translator, x: refused, l: taken as is (broker, its URL unchanged) */
struct row {
	const char *cli, *fam;
	char route;
	unsigned api, upstream_api;
};

static const struct row rows[] = {
	{ "claude", "anthropic-api", 'b', M, M }, { "claude", "ollama-0.12", 't', M, C }, { "claude", "ollama-0.13.3", 't', M, C },
	{ "claude", "ollama-0.14", 'b', M, M },   { "claude", "vllm", 'b', M, M },        { "claude", "llama-server", 'b', M, M },
	{ "claude", "lm-studio", 'b', M, M },     { "claude", "openai", 't', M, C },      { "claude", "chat-only", 't', M, C },
	{ "claude", "gemini", 'x', 0, 0 },        { "claude", "unknown", 'l', M, M },       { "claude", "responses-only", 'x', 0, 0 },

	{ "codex", "anthropic-api", 'x', 0, 0 },  { "codex", "ollama-0.12", 'x', 0, 0 },  { "codex", "ollama-0.13.3", 'b', R, R },
	{ "codex", "ollama-0.14", 'b', R, R },    { "codex", "vllm", 'b', R, R },         { "codex", "llama-server", 'x', 0, 0 },
	{ "codex", "lm-studio", 'b', R, R },      { "codex", "openai", 'b', R, R },       { "codex", "chat-only", 'x', 0, 0 },
	{ "codex", "gemini", 'x', 0, 0 },         { "codex", "unknown", 'l', R, R },        { "codex", "responses-only", 'b', R, R },

	{ "pi", "anthropic-api", 'b', M, M },     { "pi", "ollama-0.12", 't', M, C },     { "pi", "ollama-0.13.3", 't', M, C },
	{ "pi", "ollama-0.14", 'b', M, M },       { "pi", "vllm", 'b', M, M },            { "pi", "llama-server", 'b', M, M },
	{ "pi", "lm-studio", 'b', M, M },         { "pi", "openai", 't', M, C },          { "pi", "chat-only", 't', M, C },
	{ "pi", "gemini", 'x', 0, 0 },            { "pi", "unknown", 'l', M, M },           { "pi", "responses-only", 'x', 0, 0 },

	{ "gemini", "anthropic-api", 'x', 0, 0 }, { "gemini", "ollama-0.12", 'x', 0, 0 }, { "gemini", "ollama-0.13.3", 'x', 0, 0 },
	{ "gemini", "ollama-0.14", 'x', 0, 0 },   { "gemini", "vllm", 'x', 0, 0 },        { "gemini", "llama-server", 'x', 0, 0 },
	{ "gemini", "lm-studio", 'x', 0, 0 },     { "gemini", "openai", 'x', 0, 0 },      { "gemini", "chat-only", 'x', 0, 0 },
	{ "gemini", "gemini", 'b', G, G },        { "gemini", "unknown", 'l', G, G },       { "gemini", "responses-only", 'x', 0, 0 },

	/* opencode speaks Chat Completions itself: no translation for it */
	{ "opencode", "anthropic-api", 'b', M, M }, { "opencode", "ollama-0.12", 'b', C, C }, { "opencode", "ollama-0.13.3", 'b', C, C },
	{ "opencode", "ollama-0.14", 'b', M, M },   { "opencode", "vllm", 'b', M, M },        { "opencode", "llama-server", 'b', M, M },
	{ "opencode", "lm-studio", 'b', M, M },     { "opencode", "openai", 'b', C, C },      { "opencode", "chat-only", 'b', C, C },
	{ "opencode", "gemini", 'x', 0, 0 },        { "opencode", "unknown", 'l', M, M },
	/* and Responses through its @ai-sdk/openai provider, where that is all there is */
	{ "opencode", "responses-only", 'b', R, R },
};

static enum route route_of(char c, bool keys_in)
{
	if (c == 'b' || c == 'l')
		return keys_in ? ROUTE_DIRECT : ROUTE_BROKER;
	if (c == 't')
		return ROUTE_TRANSLATOR;
	return ROUTE_REFUSED;
}

static bool has_env(const struct plan *p, const char *nv)
{
	for (int i = 0; i < PLAN_VARS; i++)
		if (strcmp(p->env[i], nv) == 0)
			return true;
	return false;
}

static const char *unset_vars;  /* blank-separated names is_set_but takes as unset */

static bool is_set_but(const char *name)
{
	const char *s = unset_vars;
	size_t n = strlen(name);

	while (s && (s = strstr(s, name)) != NULL) {
		if ((s == unset_vars || s[-1] == ' ') && (s[n] == ' ' || s[n] == '\0'))
			return false;
		s += n;
	}
	return true;
}

static bool nothing_set(const char *name)
{
	(void)name;
	return false;
}

static const struct fam *fam_by_name(const char *n)
{
	for (size_t i = 0; i < sizeof(fams) / sizeof(fams[0]); i++)
		if (strcmp(fams[i].name, n) == 0)
			return &fams[i];
	return NULL;
}

int main(void)
{
	size_t n_clis = 0, n_rows = sizeof(rows) / sizeof(rows[0]);

	while (cs_cli_names[n_clis].name)
		n_clis++;
	CHECK(n_rows == n_clis * (sizeof(fams) / sizeof(fams[0])), "the matrix has a row for every CLI and family (%zu)", n_rows);
	for (size_t i = 0; i < n_rows; i++)
		for (int keys_in = 0; keys_in <= 1; keys_in++) {
			const struct row *r = &rows[i];
			const struct fam *f = fam_by_name(r->fam);
			struct endpoint ep = { 0 };
			struct plan p;
			enum route want = route_of(r->route, keys_in);
			int rc;

			snprintf(ep.name, sizeof(ep.name), "%s", f->name);
			snprintf(ep.url, sizeof(ep.url), "%s", f->url);
			snprintf(ep.type, sizeof(ep.type), "%s", f->type);
			snprintf(ep.key_env, sizeof(ep.key_env), "THE_KEY");
			snprintf(ep.model, sizeof(ep.model), "qwen3:8b");
			ep.speaks = f->speaks;
			ep.has_speaks = f->has_speaks;
			rc = plan_make(r->cli, &ep, keys_in, &p);
			CHECK(p.route == want && (rc == 0) == (want != ROUTE_REFUSED), "%s x %s, keys %s: %s (want %s)", r->cli, r->fam,
			      keys_in ? "in" : "out", route_word(p.route), route_word(want));
			if (want == ROUTE_REFUSED) {
				CHECK(p.reason[0] != '\0' && !p.key_in_sandbox && p.token_vars[0] == NULL,
				      "%s x %s refused: a reason, no key, no token", r->cli, r->fam);
				continue;
			}
			CHECK(p.api == r->api && p.upstream_api == r->upstream_api, "%s x %s: speaks %s, asks %s", r->cli, r->fam,
			      api_word(p.api), api_word(p.upstream_api));
			CHECK(p.key_in_sandbox == (want == ROUTE_DIRECT), "%s x %s: the key is in the sandbox only with --keys-in", r->cli, r->fam);
			CHECK(strcmp(p.token, want == ROUTE_DIRECT ? "key" : "broker") == 0, "%s x %s: token %s", r->cli, r->fam, p.token);
			CHECK(strcmp(p.key_var, want == ROUTE_TRANSLATOR ? "" : "THE_KEY") == 0,
			      "%s x %s: the broker reads the key from the endpoint's variable (the translator holds it)", r->cli, r->fam);
			CHECK(has_env(&p, "CLAUDE_CODE_ATTRIBUTION_HEADER=0") ==
				      (strcmp(r->cli, "claude") == 0 && strcmp(r->fam, "anthropic-api") != 0 && r->route != 'l'),
			      "%s x %s: CLAUDE_CODE_ATTRIBUTION_HEADER=0 for claude against all but Anthropic's API (a URL taken as is: nothing)",
			      r->cli, r->fam);
			if (strcmp(r->cli, "codex") == 0)
				CHECK(p.token_vars[0] && strcmp(p.token_vars[0], "CODEX_API_KEY") == 0 && p.token_vars[1] &&
					      strcmp(p.token_vars[1], "OPENAI_API_KEY") == 0,
				      "codex x %s: CODEX_API_KEY (exec) and OPENAI_API_KEY (the TUI)", r->fam);
			CHECK(strcmp(p.key_form, want == ROUTE_TRANSLATOR			  ? "x-api-key"
						 : p.api == G					  ? "x-goog-api-key"
						 : p.api == M && (strcmp(f->type, "anthropic") == 0 || r->route == 'l') ? "x-api-key"
												  : "bearer") == 0,
			      "%s x %s: the key's form %s", r->cli, r->fam, p.key_form);
			if (r->route == 'l') {
				CHECK(strcmp(p.upstream, f->url) == 0 && strcmp(p.cli_url, f->url) == 0, "%s x %s: the URL as is", r->cli, r->fam);
				continue;
			}
			/* the OpenAI SDKs get /v1, the others the root */
			bool v1 = strlen(p.upstream) >= 3 && strcmp(p.upstream + strlen(p.upstream) - 3, "/v1") == 0;
			CHECK(v1 == (p.upstream_api == C || p.upstream_api == R), "%s x %s: upstream %s", r->cli, r->fam, p.upstream);
		}

	/* The plan's lines read back into the same plan; a refused plan's fix is quoted. */
	struct endpoint ep = { .name = "e1", .url = "http://10.0.0.1:11434", .type = "ollama", .model = "m", .key_env = "K",
			       .speaks = O | C, .has_speaks = true };
	struct plan p, *q;
	struct plan_read back;
	struct cs_error err;
	char lines[4096];

	plan_make("claude", &ep, false, &p);
	CHECK(plan_lines(&p, lines, sizeof(lines)) && plan_read(lines, strlen(lines), &back, &err) == 0, "the plan reads back");
	q = &back.p;
	CHECK(q->route == p.route && q->api == p.api && q->upstream_api == p.upstream_api && strcmp(q->upstream, p.upstream) == 0 &&
		      strcmp(q->token, p.token) == 0 && q->env[0] && strcmp(q->env[0], p.env[0]) == 0 &&
		      strcmp(q->reason, p.reason) == 0 && strcmp(q->cli, "claude") == 0,
	      "every field survives the round trip");
	CHECK(plan_read("cli=claude\nroute=broker\nroute=direct\n", 36, &back, &err) != 0, "a key given twice is refused");
	CHECK(plan_read("cli=claude\nroute=broker\nrun=rm -rf /\n", 37, &back, &err) != 0, "an unknown key is refused");
	CHECK(plan_read("cli=claude\n", 11, &back, &err) != 0, "a plan without route is refused");
	CHECK(plan_read("cli=claude\nroute=broker\nreason=a\033b\n", 35, &back, &err) != 0, "a control byte is refused");
	snprintf(ep.url, sizeof(ep.url), "http://10.0.0.1:1/v1");
	ep.has_speaks = false;
	ep.type[0] = '\0';
	snprintf(ep.name, sizeof(ep.name), "a-b");
	plan_make("claude", &ep, false, &p);
	CHECK(p.route == ROUTE_BROKER && strcmp(p.upstream, "http://10.0.0.1:1/v1") == 0 && !p.env[0][0],
	      "an endpoint without a type: its URL as is, no model of its own");

	/* The runner's details. */
	struct plan_in in = { .is_set = nothing_set };
	struct endpoint oll = { .name = "o", .url = "http://10.0.0.2:11434/", .type = "ollama", .model = "qwen3:8b",
				.speaks = O | C | R | M, .has_speaks = true };
	const char *clis[] = { "claude", "codex", "pi", "opencode" };

	for (size_t i = 0; i < 4; i++)
		for (int k = 0; k <= 1; k++) {
			in.keys_in = k;
			plan_make_in(clis[i], &oll, &in, &p);
			bool oc = strcmp(clis[i], "opencode") == 0;
			CHECK(p.route == ROUTE_DIRECT && !p.key_var[0] && strcmp(p.token, oc ? "none" : "placeholder") == 0 &&
				      strcmp(p.placeholder, oc ? "" : "ollama") == 0,
			      "%s x a keyless Ollama: direct, %s", clis[i], oc ? "no key at all" : "the placeholder key ollama");
		}
	in.keys_in = false;
	plan_make_in("codex", &oll, &in, &p);
	CHECK(strcmp(p.cli_url, "http://10.0.0.2:11434/v1") == 0 && strcmp(p.cli_args[0], "-c") == 0 &&
		      strcmp(p.cli_args[1], "model=\"qwen3:8b\"") == 0,
	      "codex: the URL with /v1, -c model=\"M\": %s %s %s", p.cli_url, p.cli_args[0], p.cli_args[1]);
	plan_make_in("claude", &oll, &in, &p);
	CHECK(strcmp(p.cli_url, "http://10.0.0.2:11434") == 0 && has_env(&p, "ANTHROPIC_MODEL=qwen3:8b") && !p.cli_args[0][0],
	      "claude: the root, ANTHROPIC_MODEL");
	plan_make_in("opencode", &oll, &in, &p);
	CHECK(has_env(&p, "OPENCODE_CONFIG_CONTENT={\"provider\":{\"cli-sandbox\":{\"npm\":\"@ai-sdk/anthropic\",\"name\":\"cli-sandbox\","
			  "\"options\":{\"baseURL\":\"{env:ANTHROPIC_BASE_URL}\",\"apiKey\":\"{env:ANTHROPIC_API_KEY}\"},"
			  "\"models\":{\"qwen3:8b\":{\"tool_call\":true}}}},\"model\":\"cli-sandbox/qwen3:8b\"}"),
	      "opencode: its provider in OPENCODE_CONFIG_CONTENT (jansson), no value in it: %s", p.env[0]);
	oll.speaks = O | C;
	plan_make_in("opencode", &oll, &in, &p);
	CHECK(p.api == C && strstr(p.env[0], "\"npm\":\"@ai-sdk/openai-compatible\"") && strstr(p.env[0], "{env:OPENAI_API_KEY}") &&
		      strcmp(p.token_vars[0], "OPENAI_API_KEY") == 0,
	      "opencode on Chat: the OpenAI-compatible provider, OPENAI_API_KEY");
	oll.speaks = O | R;
	plan_make_in("opencode", &oll, &in, &p);
	CHECK(p.api == R && strstr(p.env[0], "\"npm\":\"@ai-sdk/openai\"") && strstr(p.env[0], "{env:OPENAI_BASE_URL}") &&
		      strcmp(p.token_vars[0], "OPENAI_API_KEY") == 0,
	      "opencode on Responses only: the OpenAI provider, OPENAI_BASE_URL and OPENAI_API_KEY");
	oll.speaks = O | C;
	oll.model[0] = '\0';
	CHECK(plan_make_in("opencode", &oll, &in, &p) != 0 && strstr(p.fix, "--model M"), "opencode without a model: refused, fix --model");
	CHECK(plan_make_in("claude", &oll, &in, &p) != 0 && strstr(p.reason, "the gateway must name one"),
	      "translation without a model: refused");

	/* a typed endpoint without key-env: the first of the CLI's variables exported, in its form */
	struct endpoint ant = { .name = "a", .url = "http://10.0.0.3:8000", .type = "openai", .model = "m", .speaks = M | C,
				.has_speaks = true };
	in.is_set = is_set_but;
	unset_vars = "ANTHROPIC_API_KEY";
	plan_make_in("claude", &ant, &in, &p);
	CHECK(p.route == ROUTE_BROKER && strcmp(p.key_var, "ANTHROPIC_AUTH_TOKEN") == 0 && strcmp(p.key_form, "bearer") == 0 &&
		      strcmp(p.token_vars[0], "ANTHROPIC_AUTH_TOKEN") == 0 && !p.token_vars[1],
	      "claude with ANTHROPIC_AUTH_TOKEN: Bearer, and the token in ANTHROPIC_AUTH_TOKEN");
	in.is_set = nothing_set;
	plan_make_in("claude", &ant, &in, &p);
	CHECK(p.route == ROUTE_DIRECT && strcmp(p.token, "key") == 0 && !p.key_var[0],
	      "no key exported: direct, the CLI's own credentials (the runner names the variable)");
	ant.key_env[0] = 'K';
	CHECK(plan_make_in("claude", &ant, &in, &p) != 0 && strstr(p.reason, "the key variable K of endpoint 'a' is not set"),
	      "an unset key-env: refused, naming it");

	/* --managed URL: the CLI's API, the key the person exported */
	struct endpoint url = { .name = "managed", .url = "http://10.0.0.4:4000/v1" };
	unset_vars = "ANTHROPIC_API_KEY ANTHROPIC_AUTH_TOKEN";
	in.is_set = is_set_but;
	plan_make_in("pi", &url, &in, &p);
	CHECK(p.route == ROUTE_BROKER && p.api == C && strcmp(p.key_var, "OPENAI_API_KEY") == 0 && strcmp(p.broker_api, "openai") == 0 &&
		      strcmp(p.token_vars[0], "OPENAI_API_KEY") == 0,
	      "pi --managed URL with OPENAI_API_KEY alone: openai through the broker");
	plan_make_in("gemini", &url, &in, &p);
	CHECK(p.route == ROUTE_BROKER && strcmp(p.key_form, "x-goog-api-key") == 0 && strcmp(p.token_vars[0], "GEMINI_API_KEY") == 0,
	      "gemini --managed URL: x-goog-api-key");
	in.keys_in = true;
	plan_make_in("codex", &url, &in, &p);
	CHECK(p.route == ROUTE_DIRECT && p.key_in_sandbox && strcmp(p.key_var, "OPENAI_API_KEY") == 0 && !p.cli_args[0][0],
	      "codex --managed URL --keys-in: direct, the key in, no model of its own");

	/* --translator (ping's and up's --keep-keys-out) */
	struct plan_in tr = { .translator = true };
	CHECK(plan_make_in("claude", &ant, &tr, &p) == 0 && p.route == ROUTE_TRANSLATOR && p.upstream_api == M,
	      "--translator: Messages upstream where the endpoint speaks it");
	ant.speaks = C | R;
	CHECK(plan_make_in("codex", &ant, &tr, &p) != 0 && strstr(p.reason, "--keep-keys-out is not available for codex"),
	      "--translator: codex refused");
	return check_done("test_hostctl_plan");
}
