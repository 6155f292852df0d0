#include "hostctl/plan.h"

#include <stdarg.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cli_names.h"
#include "hostctl/api.h"
#include "hostctl/probe.h"
#include "hostctl/shquote.h"

const char *route_word(enum route r)
{
	static const char *const words[] = { "direct", "broker", "translator", "refused" };

	return words[r];
}

unsigned default_speaks(const char *type)
{
	if (strcmp(type, "anthropic") == 0)
		return CS_API_MESSAGES;
	if (strcmp(type, "openai") == 0)
		return CS_API_CHAT;
	if (strcmp(type, "ollama") == 0)
		return CS_API_OLLAMA | CS_API_CHAT;
	if (strcmp(type, "gemini") == 0)
		return CS_API_GEMINI;
	return 0;
}

/* The URL a client of that API is given: Messages, Gemini and Ollama's
 * native API at the root (their SDKs add /v1/...), the OpenAI APIs at /v1
 * (the SDKs add only /chat/completions or /responses). */
static void upstream_of(const char *url, unsigned api, char *out, size_t len)
{
	char root[EP_URL_MAX + 1];

	probe_root(url, root, sizeof(root));
	snprintf(out, len, "%s%s", root, (api == CS_API_CHAT || api == CS_API_RESPONSES) ? "/v1" : "");
}

/* The variables each CLI reads its key or token from, by the API it speaks.
 * codex: CODEX_API_KEY for exec, OPENAI_API_KEY for the TUI's login (exec's
 * first: the variable ping sends).  claude: ANTHROPIC_AUTH_TOKEN (Bearer)
 * when the key came from it. */
static void token_vars_of(const char *cli, unsigned api, const char *key_var, struct plan *p)
{
	memset(p->token_vars, 0, sizeof(p->token_vars));
	if (strcmp(cli, "codex") == 0) {
		p->token_vars[0] = "CODEX_API_KEY";
		p->token_vars[1] = "OPENAI_API_KEY";
	} else if (strcmp(cli, "claude") == 0 && strcmp(key_var, "ANTHROPIC_AUTH_TOKEN") == 0) {
		p->token_vars[0] = "ANTHROPIC_AUTH_TOKEN";
	} else if (api == CS_API_GEMINI) {
		p->token_vars[0] = "GEMINI_API_KEY";
	} else if (api == CS_API_CHAT || api == CS_API_RESPONSES) {
		p->token_vars[0] = "OPENAI_API_KEY";
	} else {
		p->token_vars[0] = "ANTHROPIC_API_KEY";
	}
}

static const char *broker_api_of(unsigned api)
{
	return api == CS_API_MESSAGES ? "anthropic" : api == CS_API_GEMINI ? "gemini" : "openai";
}

static bool is_set(const struct plan_in *in, const char *name)
{
	return !in->is_set || in->is_set(name);
}

/* The first of the person's variables that holds a key for api (in the
 * order the CLIs read them), with the form its server takes: sets key_var
 * and key_form; false when none is exported. */
static bool first_key(const struct plan_in *in, unsigned api, struct plan *p)
{
	static const struct {
		unsigned api;
		const char *var, *form;
	} keys[] = {
		{ CS_API_MESSAGES, "ANTHROPIC_API_KEY", "x-api-key" }, { CS_API_MESSAGES, "ANTHROPIC_AUTH_TOKEN", "bearer" },
		{ CS_API_GEMINI, "GEMINI_API_KEY", "x-goog-api-key" }, { CS_API_GEMINI, "GOOGLE_API_KEY", "x-goog-api-key" },
		{ CS_API_CHAT, "OPENAI_API_KEY", "bearer" },           { CS_API_CHAT, "CODEX_API_KEY", "bearer" },
	};
	unsigned want = api == CS_API_RESPONSES ? CS_API_CHAT : api;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (keys[i].api == want && is_set(in, keys[i].var)) {
			snprintf(p->key_var, sizeof(p->key_var), "%s", keys[i].var);
			p->key_form = keys[i].form;
			return true;
		}
	return false;
}

/* The URL the CLI is given on its own path: the OpenAI SDK's /v1 for codex,
 * the root for the others (their SDKs, or the init for opencode, add /v1). */
static void cli_url_of(const char *cli, const char *url, char *out, size_t len)
{
	char root[EP_URL_MAX + 1];

	probe_root(url, root, sizeof(root));
	snprintf(out, len, "%s%s", root, strcmp(cli, "codex") == 0 ? "/v1" : "");
}

static void env_add(struct plan *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void env_add(struct plan *p, const char *fmt, ...)
{
	va_list ap;

	for (int i = 0; i < PLAN_VARS; i++) {
		if (p->env[i][0])
			continue;
		va_start(ap, fmt);
		int n = vsnprintf(p->env[i], sizeof(p->env[i]), fmt, ap);
		va_end(ap);
		if (n < 0 || (size_t)n >= sizeof(p->env[i]))
			p->env[i][0] = '\0';  /* a cut value would say something else: none */
		return;
	}
}

/* opencode's provider of its own, "cli-sandbox", in OPENCODE_CONFIG_CONTENT:
 * the AI SDK provider of the API it speaks on this path, its base URL and key
 * named as {env:VAR} (opencode substitutes them; no value in the config), and
 * the endpoint's model as opencode's model. */
static void opencode_config(struct plan *p)
{
	bool messages = p->api == CS_API_MESSAGES;
	const char *cred = messages ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY";
	const char *npm = messages ? "@ai-sdk/anthropic" : p->api == CS_API_RESPONSES ? "@ai-sdk/openai" : "@ai-sdk/openai-compatible";
	char base[64], key[64], model[EP_MODEL_MAX + 16];
	json_t *models = json_object(), *cfg;
	char *text;

	snprintf(base, sizeof(base), "{env:%s}", messages ? "ANTHROPIC_BASE_URL" : "OPENAI_BASE_URL");
	snprintf(key, sizeof(key), "{env:%s}", cred);
	snprintf(model, sizeof(model), "cli-sandbox/%s", p->model);
	json_object_set_new(models, p->model, json_pack("{s:b}", "tool_call", 1));
	cfg = json_pack("{s:{s:{s:s, s:s, s:{s:s, s:s}, s:o}}, s:s}", "provider", "cli-sandbox", "npm",
			npm, "name", "cli-sandbox", "options", "baseURL",
			base, "apiKey", key, "models", models, "model", model);
	text = cfg ? json_dumps(cfg, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	if (text)
		env_add(p, "OPENCODE_CONFIG_CONTENT=%s", text);
	free(text);
	json_decref(cfg);
}

/* The CLIs that would work with what the endpoint speaks, as "a, b or c". */
static void clis_that_work(unsigned speaks, char *out, size_t len)
{
	const char *names[8];
	size_t n = 0, used = 0;

	out[0] = '\0';
	for (const struct cs_cli_name *c = cs_cli_names; c->name && n < 8; c++) {
		bool ok = false;
		for (int i = 0; i < CS_CLI_APIS && c->apis[i]; i++)
			ok = ok || (speaks & c->apis[i]);
		/* the CLIs that speak Messages reach Chat and Ollama through translation */
		ok = ok || (c->apis[0] == CS_API_MESSAGES && (speaks & (CS_API_CHAT | CS_API_OLLAMA)));
		if (ok)
			names[n++] = c->name;
	}
	for (size_t i = 0; i < n; i++) {
		int k = snprintf(out + used, len - used, "%s%s", i == 0 ? "" : (i + 1 == n ? " or " : ", "), names[i]);
		if (k < 0 || (size_t)k >= len - used)
			break;
		used += (size_t)k;
	}
}

/* p->fix = words, each of args shell-quoted after them (NULL ends). */
static void set_fix(struct plan *p, const char *words, const char *a1, const char *a2, const char *tail)
{
	char q1[EP_URL_MAX * 4 + 8] = "", q2[EP_URL_MAX * 4 + 8] = "";

	if (a1)
		sh_quote(a1, q1, sizeof(q1));
	if (a2)
		sh_quote(a2, q2, sizeof(q2));
	int n = snprintf(p->fix, sizeof(p->fix), "%s%s%s%s%s%s", words, a1 ? " " : "", q1, a2 ? " " : "", q2,
			 tail ? tail : "");
	/* A cut command line would run something else: then no line at all (the reason still says
	 * what to do). URLs and models are bounded well below this, so it takes a hostile value. */
	if (n < 0 || (size_t)n >= sizeof(p->fix))
		p->fix[0] = '\0';
}

static int refuse(struct plan *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int refuse(struct plan *p, const char *fmt, ...)
{
	va_list ap;

	p->route = ROUTE_REFUSED;
	va_start(ap, fmt);
	vsnprintf(p->reason, sizeof(p->reason), fmt, ap);
	va_end(ap);
	return -1;
}

/* What every plan ends with: the CLI's variables, the URL it is given and
 * what it is told besides. */
static int plan_finish(const struct cs_cli_name *row, const struct endpoint *ep, const struct plan_in *in, struct plan *p)
{
	char host[256] = "";

	token_vars_of(row->name, p->api, p->key_var, p);
	p->key_in_sandbox = p->route == ROUTE_DIRECT && in->keys_in && p->key_var[0] != '\0';
	/* Claude Code's per-conversation attribution line would defeat every
	 * other server's prefix cache; Anthropic's own API is the exception. */
	if (!p->type[0])
		return 0;  /* a URL taken as is: told nothing (whose server it is is unknown) */
	url_host(ep->url, host, sizeof(host));
	if (strcmp(row->name, "claude") == 0 && strcmp(host, "api.anthropic.com") != 0)
		env_add(p, "CLAUDE_CODE_ATTRIBUTION_HEADER=0");
	/* The endpoint's model, where the CLI talks to it (through the broker or not): claude
	 * in ANTHROPIC_MODEL, codex with -c model="M"; pi's --model names a model of its own
	 * registry, so a direct pi keeps its own choice.  Through the translator the
	 * translator names it upstream. */
	if (p->route != ROUTE_TRANSLATOR && p->model[0] && strcmp(row->name, "claude") == 0)
		env_add(p, "ANTHROPIC_MODEL=%s", p->model);
	if (p->route != ROUTE_TRANSLATOR && p->model[0] && strcmp(row->name, "codex") == 0) {
		snprintf(p->cli_args[0], sizeof(p->cli_args[0]), "-c");
		snprintf(p->cli_args[1], sizeof(p->cli_args[1]), "model=\"%s\"", p->model);
	}
	if (strcmp(row->name, "opencode") == 0)
		opencode_config(p);
	return 0;
}

/* A URL taken as is (--managed URL, an endpoint recorded without a type):
 * the API follows the CLI and the key the person exported; through the
 * broker when a key is there and stays out. */
static int plan_as_is(const struct cs_cli_name *row, const struct endpoint *ep, const struct plan_in *in, struct plan *p)
{
	bool found;

	p->api = row->apis[0] == CS_API_MESSAGES ? CS_API_MESSAGES : row->apis[0];
	if (strcmp(row->name, "pi") == 0 || strcmp(row->name, "opencode") == 0) {
		/* they speak Chat too: the key decides (Anthropic's first) */
		if (!first_key(in, CS_API_MESSAGES, p) && (ep->key_env[0] || first_key(in, CS_API_CHAT, p)))
			p->api = CS_API_CHAT;
	}
	p->upstream_api = p->api;
	p->key_var[0] = '\0';
	p->key_form = "";
	if (ep->key_env[0]) {
		found = is_set(in, ep->key_env);
		if (found) {
			snprintf(p->key_var, sizeof(p->key_var), "%s", ep->key_env);
			p->key_form = p->api == CS_API_MESSAGES ? "x-api-key" : p->api == CS_API_GEMINI ? "x-goog-api-key" : "bearer";
		}
	} else {
		found = first_key(in, p->api, p);
	}
	p->broker_api = broker_api_of(p->api);
	snprintf(p->upstream, sizeof(p->upstream), "%s", ep->url);
	snprintf(p->cli_url, sizeof(p->cli_url), "%s", ep->url);
	/* no key exported: the CLI's own credentials (the runner names the variable when there are none) */
	p->route = found && !in->keys_in ? ROUTE_BROKER : ROUTE_DIRECT;
	p->token = p->route == ROUTE_BROKER ? "broker" : "key";
	snprintf(p->reason, sizeof(p->reason), "%s against %s taken as is (no type recorded): %s", row->name, ep->name,
		 p->route == ROUTE_BROKER ? "through the key broker, the key stays out"
		 : found		  ? "direct, the key in the sandbox (--keys-in)"
					  : "direct, with the CLI's own credentials");
	return plan_finish(row, ep, in, p);
}

/* The refusals of a CLI that no path serves, naming what would work. */
static int refuse_api(const struct cs_cli_name *row, const struct endpoint *ep, unsigned speaks, struct plan *p)
{
	char speaks_words[128], works[128];

	api_format_list(speaks, speaks_words, sizeof(speaks_words));
	clis_that_work(speaks, works, sizeof(works));
	if (strcmp(row->name, "codex") == 0) {
		set_fix(p, "cli-sandbox endpoints list", NULL, NULL, NULL);
		return refuse(p, "codex needs the OpenAI Responses API (POST /v1/responses), which endpoint '%s' does not serve (it speaks %s), and no maintained gateway here translates Responses to it: run claude or pi against '%s' (through the gateway), or point codex at an endpoint that serves /v1/responses (OpenAI, a recent Ollama)",
			      ep->name, speaks_words, ep->name);
	}
	if (strcmp(row->name, "gemini") == 0) {
		set_fix(p, "cli-sandbox endpoints list", NULL, NULL, NULL);
		return refuse(p, "gemini speaks only Google's Gemini API (POST /v1beta/models/MODEL:generateContent), which endpoint '%s' (type %s, speaks %s) does not serve, and the gateway serves only Anthropic Messages to the sandbox: %s%s%s%s, or run gemini against a Gemini API server with --managed URL (its key in GEMINI_API_KEY)",
			      ep->name, ep->type, speaks_words, works[0] ? "run " : "no CLI works with it", works,
			      works[0] ? " against " : "", works[0] ? ep->name : "");
	}
	set_fix(p, "cli-sandbox endpoints add", ep->name, ep->url, NULL);
	return refuse(p, "%s needs %s, and endpoint '%s' speaks %s (no Chat Completions for the gateway to translate to): re-probe it, or use an Anthropic, OpenAI-compatible or Ollama endpoint%s%s",
		      row->name, row->apis[2] ? "Anthropic Messages, OpenAI Chat Completions or Responses" : row->apis[1] ? "Anthropic Messages or OpenAI Chat Completions" : "Anthropic Messages", ep->name,
		      speaks_words[0] ? speaks_words : "nothing known", works[0] ? "; what works with it: " : "", works);
}

/* --keep-keys-out's old path (ping and up): Messages into the translator,
 * Messages or Chat upstream. */
static int plan_translator_only(const struct cs_cli_name *row, const struct endpoint *ep, unsigned speaks, struct plan *p)
{
	if (strcmp(row->name, "codex") == 0 && (speaks & CS_API_RESPONSES))
		return refuse(p, "--keep-keys-out is not available for codex: the gateway serves Anthropic Messages only, codex needs Responses; run codex without it (its key then reaches the sandbox), or use claude or pi");
	if (row->apis[0] != CS_API_MESSAGES || !(speaks & (CS_API_MESSAGES | CS_API_CHAT)))
		return refuse_api(row, ep, speaks, p);
	p->api = CS_API_MESSAGES;
	p->upstream_api = (speaks & CS_API_MESSAGES) ? CS_API_MESSAGES : CS_API_CHAT;
	p->route = ROUTE_TRANSLATOR;
	return 0;
}

int plan_make_in(const char *cli, const struct endpoint *ep, const struct plan_in *in, struct plan *p)
{
	const struct cs_cli_name *row = cs_cli_by_name(cli);
	unsigned speaks;
	char speaks_words[128];

	memset(p, 0, sizeof(*p));
	p->token = "none";
	p->key_form = p->broker_api = "";
	snprintf(p->endpoint, sizeof(p->endpoint), "%s", ep->name);
	snprintf(p->model, sizeof(p->model), "%s", ep->model);
	snprintf(p->type, sizeof(p->type), "%s", ep->type);
	snprintf(p->url, sizeof(p->url), "%s", ep->url);
	snprintf(p->key_env, sizeof(p->key_env), "%s", ep->key_env);
	if (!row)
		return refuse(p, "unknown CLI: use claude, codex, pi, gemini or opencode");
	snprintf(p->cli, sizeof(p->cli), "%s", row->name);
	if (!ep->type[0] && !ep->has_speaks)
		return plan_as_is(row, ep, in, p);
	speaks = ep->has_speaks ? ep->speaks : default_speaks(ep->type);
	api_format_list(speaks, p->speaks, sizeof(p->speaks));
	if (!speaks) {
		set_fix(p, "cli-sandbox endpoints add", ep->name, ep->url, NULL);
		return refuse(p, "what endpoint %s speaks is unknown (it was added without a probe or a type): add it again to probe it, or with --type",
			      ep->name);
	}
	api_format_list(speaks, speaks_words, sizeof(speaks_words));
	if (in->translator) {
		if (plan_translator_only(row, ep, speaks, p) != 0)
			return -1;
	} else {
		for (int i = 0; i < CS_CLI_APIS && row->apis[i] && !p->api; i++)
			if (speaks & row->apis[i])
				p->api = p->upstream_api = row->apis[i];
		if (!p->api && row->apis[0] == CS_API_MESSAGES && (speaks & (CS_API_CHAT | CS_API_OLLAMA))) {
			/* translation sits behind the broker even with --keys-in: the translator's
			 * management API hands its key to whoever reaches it with its token */
			p->api = CS_API_MESSAGES;
			p->upstream_api = CS_API_CHAT;  /* Ollama serves Chat Completions at /v1 too */
			p->route = ROUTE_TRANSLATOR;
		} else if (!p->api) {
			return refuse_api(row, ep, speaks, p);
		}
	}
	if (!ep->model[0] && (p->route == ROUTE_TRANSLATOR || strcmp(row->name, "opencode") == 0)) {
		set_fix(p, "cli-sandbox endpoints add", ep->name, ep->url, " --model M");
		return refuse(p, "endpoint '%s' has no model, and %s must name one: set it (Ollama: cli-sandbox --endpoint %s models use M)",
			      ep->name, p->route == ROUTE_TRANSLATOR ? "the gateway" : "opencode's provider", ep->name);
	}
	if (ep->key_env[0] && !is_set(in, ep->key_env))
		return refuse(p, "the key variable %s of endpoint '%s' is not set: export %s in your shell (its value is never printed), or re-add the endpoint without --key-env",
			      ep->key_env, ep->name, ep->key_env);
	upstream_of(ep->url, p->upstream_api, p->upstream, sizeof(p->upstream));
	cli_url_of(row->name, ep->url, p->cli_url, sizeof(p->cli_url));
	p->broker_api = broker_api_of(p->api);
	if (p->route == ROUTE_TRANSLATOR) {
		/* the broker holds the translator's token, the translator the endpoint's key */
		p->broker_api = "anthropic";
		p->key_form = "x-api-key";
		p->token = "broker";
	} else if (strcmp(ep->type, "ollama") == 0 && !ep->key_env[0]) {
		/* A keyless Ollama takes no key: nothing of the person's goes anywhere, and no
		 * broker is needed.  A CLI that will not start without one gets a value that is
		 * no secret (Ollama's OpenAI-compatibility docs pass "ollama"); opencode's
		 * provider starts without. */
		p->route = ROUTE_DIRECT;
		if (strcmp(row->name, "opencode") != 0) {
			p->token = "placeholder";
			snprintf(p->placeholder, sizeof(p->placeholder), "ollama");
		}
	} else {
		char host[256] = "";
		bool found;

		url_host(ep->url, host, sizeof(host));
		if (ep->key_env[0]) {
			snprintf(p->key_var, sizeof(p->key_var), "%s", ep->key_env);
			/* Anthropic's API takes x-api-key; the other servers that speak Messages
			 * (vLLM, llama-server, Ollama) and the OpenAI ones take Bearer. */
			p->key_form = p->api == CS_API_GEMINI ? "x-goog-api-key"
				      : p->api == CS_API_MESSAGES && (strcmp(ep->type, "anthropic") == 0 || strcmp(host, "api.anthropic.com") == 0)
					      ? "x-api-key"
					      : "bearer";
			found = true;
		} else {
			found = first_key(in, p->api, p);
		}
		p->route = found && !in->keys_in ? ROUTE_BROKER : ROUTE_DIRECT;
		p->token = p->route == ROUTE_BROKER ? "broker" : "key";
	}
	snprintf(p->reason, sizeof(p->reason), "%s speaks %s; %s speaks %s: %s", row->name, api_word(p->api), ep->name,
		 speaks_words,
		 p->route == ROUTE_DIRECT	? (p->key_var[0] ? "direct, the key in the sandbox (--keys-in)" : "direct, no key of yours on the path")
		 : p->route == ROUTE_BROKER ? "through the key broker, the key stays out"
					    : "through the key broker and a translator to chat, the key stays out");
	return plan_finish(row, ep, in, p);
}

int plan_make(const char *cli, const struct endpoint *ep, bool keys_in, struct plan *p)
{
	struct plan_in in = { .keys_in = keys_in };

	return plan_make_in(cli, ep, &in, p);
}
