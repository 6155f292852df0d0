#include "hostctl/plan.h"

#include <stdarg.h>
#include <stdio.h>
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
 * codex: CODEX_API_KEY for exec, OPENAI_API_KEY for the TUI's login. */
static void token_vars_of(const char *cli, unsigned api, struct plan *p)
{
	if (strcmp(cli, "codex") == 0) {
		p->token_vars[0] = "OPENAI_API_KEY";
		p->token_vars[1] = "CODEX_API_KEY";
	} else if (api == CS_API_GEMINI) {
		p->token_vars[0] = "GEMINI_API_KEY";
	} else if (api == CS_API_CHAT) {
		p->token_vars[0] = "OPENAI_API_KEY";
	} else {
		p->token_vars[0] = "ANTHROPIC_API_KEY";
	}
}

/* The CLIs that would work with what the endpoint speaks, as "a, b or c". */
static void clis_that_work(unsigned speaks, char *out, size_t len)
{
	const char *names[8];
	size_t n = 0, used = 0;

	out[0] = '\0';
	for (const struct cs_cli_name *c = cs_cli_names; c->name && n < 8; c++) {
		bool ok = false;
		for (int i = 0; i < 2 && c->apis[i]; i++)
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

int plan_make(const char *cli, const struct endpoint *ep, bool keys_in, struct plan *p)
{
	const struct cs_cli_name *row = cs_cli_by_name(cli);
	unsigned speaks;
	char host[256] = "", speaks_words[128], works[128];

	memset(p, 0, sizeof(*p));
	p->token = "none";
	snprintf(p->endpoint, sizeof(p->endpoint), "%s", ep->name);
	snprintf(p->model, sizeof(p->model), "%s", ep->model);
	if (!row)
		return refuse(p, "unknown CLI: use claude, codex, pi, gemini or opencode");
	snprintf(p->cli, sizeof(p->cli), "%s", row->name);
	speaks = ep->has_speaks ? ep->speaks : default_speaks(ep->type);
	if (!speaks) {
		set_fix(p, "cli-sandbox endpoints add", ep->name, ep->url, NULL);
		return refuse(p, "what endpoint %s speaks is unknown (it was added without a probe or a type): add it again to probe it, or with --type",
			      ep->name);
	}
	api_format_list(speaks, speaks_words, sizeof(speaks_words));
	for (int i = 0; i < 2 && row->apis[i] && !p->api; i++)
		if (speaks & row->apis[i])
			p->api = p->upstream_api = row->apis[i];
	if (!p->api && row->apis[0] == CS_API_MESSAGES && (speaks & (CS_API_CHAT | CS_API_OLLAMA))) {
		if (keys_in) {
			char q[EP_NAME_MAX * 4 + 8];

			sh_quote(ep->name, q, sizeof(q));
			snprintf(p->fix, sizeof(p->fix), "cli-sandbox-ctl plan --cli %s --endpoint %s", row->name, q);
			return refuse(p, "%s needs translation to reach %s (it speaks %s, not anthropic), and the translator sits behind the key broker, which holds the key: run without --keys-in",
				      row->name, ep->name, speaks_words);
		}
		p->api = CS_API_MESSAGES;
		p->upstream_api = CS_API_CHAT;  /* Ollama serves Chat Completions at /v1 too */
		p->route = ROUTE_TRANSLATOR;
	} else if (!p->api) {
		clis_that_work(speaks, works, sizeof(works));
		set_fix(p, "cli-sandbox endpoints list", NULL, NULL, NULL);
		return refuse(p, "%s needs the %s API, and endpoint %s speaks %s; %s%s", row->name,
			      api_word(row->apis[0]), ep->name, speaks_words, works[0] ? "what works with it: " : "no CLI works with it",
			      works);
	} else {
		p->route = keys_in ? ROUTE_DIRECT : ROUTE_BROKER;
	}
	upstream_of(ep->url, p->upstream_api, p->upstream, sizeof(p->upstream));
	snprintf(p->key_env, sizeof(p->key_env), "%s", ep->key_env);
	token_vars_of(row->name, p->api, p);
	if (p->route == ROUTE_DIRECT) {
		p->key_in_sandbox = ep->key_env[0] != '\0';
		p->token = p->key_in_sandbox ? "key" : "none";
	} else {
		p->token = "broker";
	}
	/* Claude Code's per-conversation attribution line would defeat every
	 * other server's prefix cache; Anthropic's own API is the exception. */
	url_host(ep->url, host, sizeof(host));
	if (strcmp(row->name, "claude") == 0 && strcmp(host, "api.anthropic.com") != 0)
		p->env[0] = "CLAUDE_CODE_ATTRIBUTION_HEADER=0";
	snprintf(p->reason, sizeof(p->reason), "%s speaks %s; %s speaks %s: %s", row->name, api_word(p->api), ep->name,
		 speaks_words,
		 p->route == ROUTE_DIRECT ? "direct, the key in the sandbox (--keys-in)"
		 : p->route == ROUTE_BROKER ? "through the key broker, the key stays out"
					    : "through the key broker and a translator to chat, the key stays out");
	return 0;
}
