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
	LINE("route", route_word(p->route));
	LINE("api", word_or_empty(p->api));
	LINE("upstream_api", word_or_empty(p->upstream_api));
	LINE("upstream", p->upstream);
	LINE("model", p->model);
	LINE("key_env", p->key_env);
	LINE("key_in_sandbox", yes(p->key_in_sandbox));
	LINE("token", p->token);
	for (int i = 0; i < PLAN_VARS && p->token_vars[i]; i++)
		LINE("token_var", p->token_vars[i]);
	for (int i = 0; i < PLAN_VARS && p->env[i]; i++)
		LINE("env", p->env[i]);
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
	for (int i = 0; i < PLAN_VARS && p->env[i]; i++) {
		const char *eq = strchr(p->env[i], '=');
		char name[128];

		snprintf(name, sizeof(name), "%.*s", (int)(eq - p->env[i]), p->env[i]);
		json_object_set_new(env, name, json_string(eq + 1));
	}
	json_object_set_new(o, "cli", str_or_null(p->cli));
	json_object_set_new(o, "endpoint", str_or_null(p->endpoint));
	json_object_set_new(o, "route", json_string(route_word(p->route)));
	json_object_set_new(o, "api", str_or_null(api_word(p->api)));
	json_object_set_new(o, "upstream_api", str_or_null(api_word(p->upstream_api)));
	json_object_set_new(o, "upstream", str_or_null(p->upstream));
	json_object_set_new(o, "model", str_or_null(p->model));
	json_object_set_new(o, "key_env", str_or_null(p->key_env));
	json_object_set_new(o, "key_in_sandbox", json_boolean(p->key_in_sandbox));
	json_object_set_new(o, "token", json_string(p->token ? p->token : "none"));
	json_object_set_new(o, "token_vars", tv);
	json_object_set_new(o, "env", env);
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

/* One key=value line; NULL when good, else why not. */
static const char *read_line(const char *k, size_t kn, const char *v, size_t vn, struct plan_read *r, unsigned *seen)
{
	static const char *const keys[] = { "cli",    "endpoint", "route", "api",       "upstream_api", "upstream", "model",
					     "key_env", "key_in_sandbox", "token", "token_var", "env",  "reason",   "fix" };
	struct plan *p = &r->p;
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strlen(keys[i]) == kn && memcmp(keys[i], k, kn) == 0)
			break;
	if (i == sizeof(keys) / sizeof(keys[0]))
		return "unknown key";
	if (strcmp(keys[i], "token_var") != 0 && strcmp(keys[i], "env") != 0) {
		if (*seen & (1u << i))
			return "a key given twice";
		*seen |= 1u << i;
	}
	switch (i) {
	case 0: return set_text(p->cli, sizeof(p->cli), v, vn) ? NULL : "cli too long";
	case 1: return set_text(p->endpoint, sizeof(p->endpoint), v, vn) ? NULL : "endpoint too long";
	case 2:
		for (int rt = ROUTE_DIRECT; rt <= ROUTE_REFUSED; rt++)
			if (strlen(route_word((enum route)rt)) == vn && memcmp(route_word((enum route)rt), v, vn) == 0) {
				p->route = (enum route)rt;
				return NULL;
			}
		return "unknown route";
	case 3:
	case 4: {
		unsigned a = api_of_word(v, vn);
		if (a == ~0u)
			return "not one API";
		*(i == 3 ? &p->api : &p->upstream_api) = a;
		return NULL;
	}
	case 5: return set_text(p->upstream, sizeof(p->upstream), v, vn) ? NULL : "upstream too long";
	case 6: return set_text(p->model, sizeof(p->model), v, vn) ? NULL : "model too long";
	case 7: return set_text(p->key_env, sizeof(p->key_env), v, vn) ? NULL : "key_env too long";
	case 8:
		if (vn == 3 && memcmp(v, "yes", 3) == 0)
			p->key_in_sandbox = true;
		else if (!(vn == 2 && memcmp(v, "no", 2) == 0))
			return "key_in_sandbox is yes or no";
		return NULL;
	case 9:
		if (vn == 6 && memcmp(v, "broker", 6) == 0)
			p->token = "broker";
		else if (vn == 3 && memcmp(v, "key", 3) == 0)
			p->token = "key";
		else if (vn == 4 && memcmp(v, "none", 4) == 0)
			p->token = "none";
		else
			return "token is broker, key or none";
		return NULL;
	case 10:
	case 11: {
		int slot = i == 10 ? 0 : 1, j = 0;
		const char **arr = slot == 0 ? p->token_vars : p->env;

		while (j < PLAN_VARS && arr[j])
			j++;
		if (j == PLAN_VARS)
			return "too many values";
		if (!set_text(r->storage[slot][j], sizeof(r->storage[slot][j]), v, vn))
			return "value too long";
		if (slot == 1 && !memchr(v, '=', vn))
			return "env is NAME=VALUE";
		arr[j] = r->storage[slot][j];
		return NULL;
	}
	case 12: return set_text(p->reason, sizeof(p->reason), v, vn) ? NULL : "reason too long";
	default: return set_text(p->fix, sizeof(p->fix), v, vn) ? NULL : "fix too long";
	}
}

int plan_read(const char *text, size_t n, struct plan_read *out, struct cs_error *err)
{
	unsigned seen = 0;
	size_t line = 0;

	memset(out, 0, sizeof(*out));
	out->p.token = "none";
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
	if (!(seen & 1u) || !(seen & 4u))
		return cs_fail(err, CS_EXIT_CONFIG, "the plan has no cli or no route; print it again with cli-sandbox-ctl plan");
	return 0;
}
