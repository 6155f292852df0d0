/* endpoints list|add|use|rm: the endpoint store, as the runner's
 * host/lib/endpoints.sh kept it, with the probe of classify.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hostctl/api.h"
#include "hostctl/cmds.h"
#include "hostctl/endpoint_file.h"
#include "hostctl/home.h"
#include "hostctl/plan.h"
#include "hostctl/probe.h"
#include "hostctl/shquote.h"

static const char help[] =
	"Usage: cli-sandbox-ctl endpoints list [--json]\n"
	"       cli-sandbox-ctl endpoints add NAME URL [--type anthropic|openai|ollama|gemini] [--model M]\n"
	"                 [--key-env VAR] [--speaks LIST] [--no-probe] [--json]\n"
	"       cli-sandbox-ctl endpoints use NAME | rm NAME [--json]\n"
	"Named model endpoints in $CLI_SANDBOX_HOME/endpoints (default ~/.config/cli-sandbox).\n"
	"add probes what the endpoint speaks from the shape of its answers (docs/hostctl.md);\n"
	"--key-env VAR names the variable holding its key: the probe sends the key to that\n"
	"endpoint alone, and the key is never stored or printed.\n";

struct store {
	char path[4096];
	struct endpoints *eps;
};

static int open_store(struct store *s, struct cs_error *err)
{
	s->eps = calloc(1, sizeof(*s->eps));
	if (!s->eps)
		return cs_fail(err, CS_EXIT_OSERR, "out of memory");
	if (home_file("endpoints", s->path, sizeof(s->path), err) != 0)
		return -1;
	return endpoints_load(s->path, s->eps, err);
}

static json_t *endpoint_json(const struct endpoint *e, const char *current)
{
	json_t *o = json_object(), *sp = json_array();

	for (unsigned bit = 1; bit <= CS_API_GEMINI; bit <<= 1)
		if (e->speaks & bit)
			json_array_append_new(sp, json_string(api_word(bit)));
	json_object_set_new(o, "name", json_string(e->name));
	json_object_set_new(o, "url", json_string(e->url));
	json_object_set_new(o, "type", e->type[0] ? json_string(e->type) : json_null());
	json_object_set_new(o, "model", e->model[0] ? json_string(e->model) : json_null());
	json_object_set_new(o, "key_env", e->key_env[0] ? json_string(e->key_env) : json_null());
	json_object_set_new(o, "speaks", sp);
	json_object_set_new(o, "selected", json_boolean(strcmp(e->name, current) == 0));
	return o;
}

static int list(struct store *s, bool json)
{
	char cur[EP_NAME_MAX + 2], speaks[128];

	home_current(cur, sizeof(cur));
	if (json) {
		json_t *a = json_array();
		for (size_t i = 0; i < s->eps->n; i++)
			json_array_append_new(a, endpoint_json(&s->eps->e[i], cur));
		return ctl_print_json(a);
	}
	if (s->eps->n == 0) {
		puts("no endpoints; add one with: cli-sandbox endpoints add NAME URL");
		return 0;
	}
	for (size_t i = 0; i < s->eps->n; i++) {
		const struct endpoint *e = &s->eps->e[i];

		printf("%s %s %s%s%s%s%s%s%s%s%s\n", strcmp(e->name, cur) == 0 ? "*" : " ", e->name, e->url,
		       e->type[0] ? " type=" : "", e->type, e->model[0] ? " model=" : "", e->model,
		       e->has_speaks ? " speaks=" : "", e->has_speaks ? api_format_list(e->speaks, speaks, sizeof(speaks)) : "",
		       e->key_env[0] ? " key=$" : "", e->key_env);
	}
	return 0;
}

/* What a failed probe means, with the fix. */
static void probe_problem(enum verdict v, const struct endpoint *e, char *out, size_t len)
{
	char q[EP_URL_MAX * 4 + 8];

	sh_quote(e->url, q, sizeof(q));
	if (v == VERDICT_SILENT)
		snprintf(out, len, "%s does not answer HTTP within 3 seconds: start the model server and check the URL, or pass --type to record it without probing", q);
	else if (v == VERDICT_SAME_EVERYWHERE)
		snprintf(out, len,
			 "%s answers every path alike, a route that does not exist too (a server that checks the key before routing, or answers 200 everywhere): %s, or pass --type to record it",
			 q, e->key_env[0] ? "check that the key's variable holds the right key" : "pass --key-env VAR naming the variable that holds its key, so the probe reaches its real routes");
	else
		snprintf(out, len, "%s answers, but with none of the Anthropic Messages, OpenAI Chat Completions, Responses, Ollama or Gemini APIs' shapes: check the URL (an OpenAI-compatible server's usually ends in /v1)", q);
}

static int add(struct store *s, int argc, char **argv, bool json)
{
	struct endpoint e = { 0 };
	struct cs_error err;
	bool probe = true, given = false;
	char problem[2400], speaks[128];

	if (argc < 2)
		return ctl_usage("usage: cli-sandbox endpoints add NAME URL [--type anthropic|openai|ollama|gemini] [--model M] [--key-env VAR] [--no-probe]");
	if (!valid_endpoint_name(argv[0], strlen(argv[0])))
		return ctl_usage("bad endpoint name: use letters, digits, '-', '_' and '.', starting with a letter or digit (at most 63)");
	if (check_url(argv[1], strlen(argv[1]), &err) != 0)
		return ctl_fail(&err);
	snprintf(e.name, sizeof(e.name), "%s", argv[0]);
	snprintf(e.url, sizeof(e.url), "%s", argv[1]);
	for (int i = 2; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(o, "--no-probe") == 0) {
			probe = false;
			continue;
		}
		if (!v)
			return ctl_usage("%s needs a value", strcmp(o, "--type") && strcmp(o, "--model") && strcmp(o, "--key-env") && strcmp(o, "--speaks") ? "an option" : o);
		i++;
		if (strcmp(o, "--type") == 0) {
			if (!valid_type(v, strlen(v)))
				return ctl_usage("unknown endpoint type: use --type anthropic, openai, ollama or gemini (or leave it out to probe)");
			snprintf(e.type, sizeof(e.type), "%s", v);
		} else if (strcmp(o, "--model") == 0) {
			if (!valid_model(v, strlen(v)))
				return ctl_usage("bad model name: use letters, digits and . _ : / @ + - (at most 128), starting with a letter or digit, e.g. --model qwen3:8b");
			snprintf(e.model, sizeof(e.model), "%s", v);
		} else if (strcmp(o, "--key-env") == 0) {
			if (!valid_key_env(v, strlen(v)))
				return ctl_usage("bad --key-env: give the NAME of the exported variable that holds the key (e.g. --key-env OPENAI_API_KEY), never the key itself");
			snprintf(e.key_env, sizeof(e.key_env), "%s", v);
		} else if (strcmp(o, "--speaks") == 0) {
			if (!api_parse_list(v, strlen(v), &e.speaks))
				return ctl_usage("unknown API in --speaks: use a comma list of anthropic, chat, responses, ollama and gemini");
			e.has_speaks = given = true;
			probe = false;
		} else {
			return ctl_usage("unknown argument for endpoints add: use --type, --model, --key-env, --speaks or --no-probe");
		}
	}
	if (given && !e.type[0])
		return ctl_usage("--speaks needs --type: say which type the endpoint is (anthropic, openai, ollama or gemini)");
	if (probe) {
		const char *key = e.key_env[0] ? getenv(e.key_env) : NULL;
		enum verdict v;

		if (e.key_env[0] && (!key || !*key))
			ctl_warn("$%s is not set: probing without the key", e.key_env);
		if (probe_endpoint(e.url, key && *key ? key : NULL, &e.speaks, &v, &err) != 0)
			return ctl_fail(&err);
		if (v == VERDICT_OK) {
			e.has_speaks = true;
		} else {
			probe_problem(v, &e, problem, sizeof(problem));
			if (!e.type[0])
				return ctl_usage("%s", problem);
			ctl_warn("%s; recorded as type %s", problem, e.type);
		}
	}
	if (probe || e.type[0]) {
		if (!e.type[0])
			snprintf(e.type, sizeof(e.type), "%s", type_of_speaks(e.speaks));
		if (!e.has_speaks) {
			e.speaks = default_speaks(e.type);
			e.has_speaks = true;
		}
	}
	if (endpoints_put(s->eps, &e, &err) != 0 || endpoints_save(s->path, s->eps, &err) != 0)
		return ctl_fail(&err);
	if (json) {
		char cur[EP_NAME_MAX + 2];
		home_current(cur, sizeof(cur));
		return ctl_print_json(endpoint_json(&e, cur));
	}
	api_format_list(e.speaks, speaks, sizeof(speaks));
	printf("%s: %s%s%s%s%s%s%s%s%s\n", e.name, e.url, e.type[0] ? ", type " : "", e.type, e.type[0] ? ", speaks " : "",
	       e.type[0] ? speaks : "", e.model[0] ? ", model " : "", e.model, e.key_env[0] ? ", key from $" : "", e.key_env);
	return 0;
}

static int use_or_rm(struct store *s, bool use, const char *name, bool json)
{
	char cur_path[4096], cur[EP_NAME_MAX + 2], line[EP_NAME_MAX + 2];
	struct cs_error err;

	if (home_file("current", cur_path, sizeof(cur_path), &err) != 0)
		return ctl_fail(&err);
	if (!valid_endpoint_name(name, strlen(name)))
		return ctl_usage("bad endpoint name: use letters, digits, '-', '_' and '.', starting with a letter or digit");
	if (!endpoints_find(s->eps, name))  /* the name is safe to print: the rule above */
		return ctl_usage("no endpoint named '%s': see 'cli-sandbox endpoints list'", name);
	if (use) {
		snprintf(line, sizeof(line), "%s\n", name);
		if (write_file_atomic(cur_path, line, strlen(line), &err) != 0)
			return ctl_fail(&err);
	} else {
		endpoints_remove(s->eps, name);
		if (endpoints_save(s->path, s->eps, &err) != 0)
			return ctl_fail(&err);
		home_current(cur, sizeof(cur));
		if (strcmp(cur, name) == 0)
			unlink(cur_path);
	}
	if (json) {
		json_t *o = json_object();
		json_object_set_new(o, use ? "selected" : "removed", json_string(name));
		return ctl_print_json(o);
	}
	return 0;  /* silent, as the runner's use and rm */
}

/* rm on a file that does not read: NAME's lines go as text, the rest stays
 * as it is (the runner's rm did the same), so a bad line can be removed. */
static int rm_raw(const char *name, bool json)
{
	char path[4096], cur_path[4096], cur[EP_NAME_MAX + 2];
	struct cs_error err;
	bool found;

	if (!valid_endpoint_name(name, strlen(name)))
		return ctl_usage("bad endpoint name: use letters, digits, '-', '_' and '.', starting with a letter or digit");
	if (home_file("endpoints", path, sizeof(path), &err) != 0 || home_file("current", cur_path, sizeof(cur_path), &err) != 0 ||
	    endpoints_remove_raw(path, name, &found, &err) != 0)
		return ctl_fail(&err);
	if (!found)
		return ctl_usage("no endpoint named '%s': see 'cli-sandbox endpoints list'", name);
	home_current(cur, sizeof(cur));
	if (strcmp(cur, name) == 0)
		unlink(cur_path);
	if (json) {
		json_t *o = json_object();
		json_object_set_new(o, "removed", json_string(name));
		return ctl_print_json(o);
	}
	return 0;
}

int cmd_endpoints(int argc, char **argv)
{
	struct store s = { .eps = NULL };
	struct cs_error err;
	bool json;
	int rc;

	if (ctl_help(argc, argv, help))
		return 0;
	json = ctl_take_json(&argc, argv);
	if (argc == 3 && strcmp(argv[1], "rm") == 0 && open_store(&s, &err) != 0 && err.status != CS_EXIT_OSERR) {
		free(s.eps);
		return rm_raw(argv[2], json);  /* a file that does not read: rm mends it */
	}
	free(s.eps);
	s.eps = NULL;
	if (open_store(&s, &err) != 0) {
		free(s.eps);
		return ctl_fail(&err);
	}
	if (argc < 2 || strcmp(argv[1], "list") == 0)
		rc = argc > 2 ? ctl_usage("usage: cli-sandbox endpoints list [--json]") : list(&s, json);
	else if (strcmp(argv[1], "add") == 0)
		rc = add(&s, argc - 2, argv + 2, json);
	else if ((strcmp(argv[1], "use") == 0 || strcmp(argv[1], "rm") == 0) && argc == 3)
		rc = use_or_rm(&s, strcmp(argv[1], "use") == 0, argv[2], json);
	else
		rc = ctl_usage("unknown endpoints command: use list, add NAME URL, use NAME or rm NAME");
	free(s.eps);
	return rc;
}
