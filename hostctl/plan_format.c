#include "hostctl/plan_format.h"

#include <string.h>

#include "hostctl/api.h"

static const char *yes(bool b)
{
	return b ? "yes" : "no";
}

static const char *word_or_empty(unsigned api)
{
	const char *w = api_word(api);
	return w ? w : "";
}

bool plan_lines(const struct plan *p, char *out, size_t len)
{
	size_t used = 0;
	int k;

#define LINE(key, val)                                                                     \
	do {                                                                               \
		k = snprintf(out + used, len - used, "%s=%s\n", key, val);                 \
		if (k < 0 || (size_t)k >= len - used)                                      \
			return false;                                                      \
		used += (size_t)k;                                                         \
	} while (0)
	out[0] = '\0';
	LINE("cli", p->cli);
	LINE("endpoint", p->endpoint);
	LINE("type", p->type);
	LINE("url", p->url);
	LINE("speaks", p->speaks);
	LINE("route", route_word(p->route));
	LINE("api", word_or_empty(p->api));
	LINE("upstream_api", word_or_empty(p->upstream_api));
	LINE("upstream", p->upstream);
	LINE("cli_url", p->cli_url);
	LINE("model", p->model);
	LINE("key_env", p->key_env);
	LINE("key_var", p->key_var);
	LINE("key_form", p->key_form ? p->key_form : "");
	LINE("broker_api", p->broker_api ? p->broker_api : "");
	LINE("key_in_sandbox", yes(p->key_in_sandbox));
	LINE("token", p->token ? p->token : "none");
	LINE("placeholder", p->placeholder);
	for (int i = 0; i < PLAN_VARS && p->token_vars[i]; i++)
		LINE("token_var", p->token_vars[i]);
	for (int i = 0; i < PLAN_VARS && p->env[i][0]; i++)
		LINE("env", p->env[i]);
	for (int i = 0; i < 2 && p->cli_args[i][0]; i++)
		LINE("cli_arg", p->cli_args[i]);
	LINE("reason", p->reason);
	LINE("fix", p->fix);
#undef LINE
	return true;
}

static json_t *str_or_null(const char *s)
{
	return s && *s ? json_string(s) : json_null();
}

json_t *plan_json(const struct plan *p)
{
	json_t *o = json_object(), *tv = json_array(), *env = json_object();

	for (int i = 0; i < PLAN_VARS && p->token_vars[i]; i++)
		json_array_append_new(tv, json_string(p->token_vars[i]));
	for (int i = 0; i < PLAN_VARS && p->env[i][0]; i++) {
		const char *eq = strchr(p->env[i], '=');
		char name[128];

		if (!eq)
			continue;

		snprintf(name, sizeof(name), "%.*s", (int)(eq - p->env[i]), p->env[i]);
		json_object_set_new(env, name, json_string(eq + 1));
	}
	json_object_set_new(o, "cli", str_or_null(p->cli));
	json_object_set_new(o, "endpoint", str_or_null(p->endpoint));
	json_object_set_new(o, "type", str_or_null(p->type));
	json_object_set_new(o, "url", str_or_null(p->url));
	json_object_set_new(o, "speaks", str_or_null(p->speaks));
	json_object_set_new(o, "route", json_string(route_word(p->route)));
	json_object_set_new(o, "api", str_or_null(api_word(p->api)));
	json_object_set_new(o, "upstream_api", str_or_null(api_word(p->upstream_api)));
	json_object_set_new(o, "upstream", str_or_null(p->upstream));
	json_object_set_new(o, "model", str_or_null(p->model));
	json_object_set_new(o, "key_env", str_or_null(p->key_env));
	json_object_set_new(o, "cli_url", str_or_null(p->cli_url));
	json_object_set_new(o, "key_var", str_or_null(p->key_var));
	json_object_set_new(o, "key_form", str_or_null(p->key_form));
	json_object_set_new(o, "broker_api", str_or_null(p->broker_api));
	json_object_set_new(o, "placeholder", str_or_null(p->placeholder));
	json_object_set_new(o, "key_in_sandbox", json_boolean(p->key_in_sandbox));
	json_object_set_new(o, "token", json_string(p->token ? p->token : "none"));
	json_object_set_new(o, "token_vars", tv);
	json_object_set_new(o, "env", env);
	{
		json_t *args = json_array();
		for (int i = 0; i < 2 && p->cli_args[i][0]; i++)
			json_array_append_new(args, json_string(p->cli_args[i]));
		json_object_set_new(o, "cli_args", args);
	}
	json_object_set_new(o, "reason", str_or_null(p->reason));
	json_object_set_new(o, "fix", str_or_null(p->fix));
	return o;
}

static bool set_text(char *dst, size_t cap, const char *v, size_t n)
{
	if (n >= cap)
		return false;
	memcpy(dst, v, n);
	dst[n] = '\0';
	return true;
}

static unsigned api_of_word(const char *v, size_t n)
{
	unsigned m = 0;

	if (n == 0)
		return 0;
	if (!api_parse_list(v, n, &m) || (m & (m - 1)))
		return ~0u;  /* not one API */
	return m;
}

/* One word of words[] (NULL-terminated) into *out; false when v is none of them. */
static bool set_word(const char **out, const char *const *words, const char *v, size_t n)
{
	for (; *words; words++)
		if (strlen(*words) == n && memcmp(*words, v, n) == 0) {
			*out = *words;
			return true;
		}
	return false;
}

enum plan_key {
	K_CLI, K_ENDPOINT, K_TYPE, K_URL, K_SPEAKS, K_ROUTE, K_API, K_UPSTREAM_API, K_UPSTREAM, K_CLI_URL, K_MODEL,
	K_KEY_ENV, K_KEY_VAR, K_KEY_FORM, K_BROKER_API, K_KEY_IN_SANDBOX, K_TOKEN, K_PLACEHOLDER, K_TOKEN_VAR, K_ENV,
	K_CLI_ARG, K_REASON, K_FIX, K_N
};

static const char *const plan_keys[K_N] = {
	"cli",	   "endpoint", "type",	    "url",	      "speaks",	  "route",	 "api",		 "upstream_api",
	"upstream", "cli_url",  "model",    "key_env",    "key_var",  "key_form",	 "broker_api",	 "key_in_sandbox",
	"token",    "placeholder", "token_var", "env",	  "cli_arg",  "reason",	 "fix",
};

#define TEXT(field) return set_text(p->field, sizeof(p->field), v, vn) ? NULL : #field " too long"

/* One key=value line; NULL when good, else why not. */
static const char *read_line(const char *k, size_t kn, const char *v, size_t vn, struct plan_read *r, unsigned *seen)
{
	static const char *const forms[] = { "", "x-api-key", "bearer", "x-goog-api-key", NULL };
	static const char *const bapis[] = { "", "anthropic", "openai", "gemini", NULL };
	static const char *const tokens[] = { "broker", "key", "placeholder", "none", NULL };
	struct plan *p = &r->p;
	size_t i;

	for (i = 0; i < K_N; i++)
		if (strlen(plan_keys[i]) == kn && memcmp(plan_keys[i], k, kn) == 0)
			break;
	if (i == K_N)
		return "unknown key";
	if (i != K_TOKEN_VAR && i != K_ENV && i != K_CLI_ARG) {
		if (*seen & (1u << i))
			return "a key given twice";
		*seen |= 1u << i;
	}
	switch ((enum plan_key)i) {
	case K_CLI: TEXT(cli);
	case K_ENDPOINT: TEXT(endpoint);
	case K_TYPE: TEXT(type);
	case K_URL: TEXT(url);
	case K_SPEAKS: TEXT(speaks);
	case K_ROUTE:
		for (int rt = ROUTE_DIRECT; rt <= ROUTE_REFUSED; rt++)
			if (strlen(route_word((enum route)rt)) == vn && memcmp(route_word((enum route)rt), v, vn) == 0) {
				p->route = (enum route)rt;
				return NULL;
			}
		return "unknown route";
	case K_API:
	case K_UPSTREAM_API: {
		unsigned a = api_of_word(v, vn);
		if (a == ~0u)
			return "not one API";
		*(i == K_API ? &p->api : &p->upstream_api) = a;
		return NULL;
	}
	case K_UPSTREAM: TEXT(upstream);
	case K_CLI_URL: TEXT(cli_url);
	case K_MODEL: TEXT(model);
	case K_KEY_ENV: TEXT(key_env);
	case K_KEY_VAR: TEXT(key_var);
	case K_KEY_FORM: return set_word(&p->key_form, forms, v, vn) ? NULL : "key_form is x-api-key, bearer or x-goog-api-key";
	case K_BROKER_API: return set_word(&p->broker_api, bapis, v, vn) ? NULL : "broker_api is anthropic, openai or gemini";
	case K_KEY_IN_SANDBOX:
		if (vn == 3 && memcmp(v, "yes", 3) == 0)
			p->key_in_sandbox = true;
		else if (!(vn == 2 && memcmp(v, "no", 2) == 0))
			return "key_in_sandbox is yes or no";
		return NULL;
	case K_TOKEN: return set_word(&p->token, tokens, v, vn) ? NULL : "token is broker, key, placeholder or none";
	case K_PLACEHOLDER: TEXT(placeholder);
	case K_TOKEN_VAR: {
		int j = 0;

		while (j < PLAN_VARS && p->token_vars[j])
			j++;
		if (j == PLAN_VARS)
			return "too many values";
		if (vn == 0 || !set_text(r->storage[j], sizeof(r->storage[j]), v, vn))
			return "token_var empty or too long";
		p->token_vars[j] = r->storage[j];
		return NULL;
	}
	case K_ENV:
	case K_CLI_ARG: {
		int j = 0, cap = i == K_ENV ? PLAN_VARS : 2;
		char *slot;
		size_t len;

		while (j < cap && (i == K_ENV ? p->env[j][0] : p->cli_args[j][0]))
			j++;
		if (j == cap)
			return "too many values";
		slot = i == K_ENV ? p->env[j] : p->cli_args[j];
		len = i == K_ENV ? sizeof(p->env[j]) : sizeof(p->cli_args[j]);
		if (vn == 0 || !set_text(slot, len, v, vn))
			return "value empty or too long";
		if (i == K_ENV && (!memchr(v, '=', vn) || v[0] == '='))
			return "env is NAME=VALUE";
		return NULL;
	}
	case K_REASON: TEXT(reason);
	case K_FIX: TEXT(fix);
	case K_N: break;
	}
	return "unknown key";
}

#undef TEXT

int plan_read(const char *text, size_t n, struct plan_read *out, struct cs_error *err)
{
	unsigned seen = 0;
	size_t line = 0;

	memset(out, 0, sizeof(*out));
	out->p.token = "none";
	out->p.key_form = out->p.broker_api = "";
	for (size_t i = 0; i < n;) {
		const char *nl = memchr(text + i, '\n', n - i);
		size_t len = nl ? (size_t)(nl - (text + i)) : n - i;
		const char *s = text + i, *eq, *why;

		line++;
		i += len + (nl ? 1 : 0);
		for (size_t j = 0; j < len; j++)
			if ((unsigned char)s[j] < 0x20 || (unsigned char)s[j] > 0x7e)
				return cs_fail(err, CS_EXIT_CONFIG, "plan line %zu: a byte outside printable ASCII; the plan is one KEY=VALUE a line", line);
		eq = memchr(s, '=', len);
		if (!eq)
			return cs_fail(err, CS_EXIT_CONFIG, "plan line %zu: no '='; the plan is one KEY=VALUE a line", line);
		why = read_line(s, (size_t)(eq - s), eq + 1, len - (size_t)(eq - s) - 1, out, &seen);
		if (why)
			return cs_fail(err, CS_EXIT_CONFIG, "plan line %zu: %s; print the plan again with cli-sandbox-ctl plan", line, why);
	}
	if (!(seen & (1u << K_CLI)) || !(seen & (1u << K_ROUTE)))
		return cs_fail(err, CS_EXIT_CONFIG, "the plan has no cli or no route; print it again with cli-sandbox-ctl plan");
	return 0;
}
