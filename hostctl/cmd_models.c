/* models catalog|list|pull MODEL|use MODEL [--pull]: an Ollama endpoint's
 * models through Ollama's own API (ollama.h parses, ollama_http.h asks). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hostctl/api.h"
#include "hostctl/cmds.h"
#include "hostctl/endpoint_file.h"
#include "hostctl/home.h"
#include "hostctl/models_catalog.h"
#include "hostctl/ollama.h"
#include "hostctl/ollama_http.h"
#include "hostctl/probe.h"
#include "hostctl/shquote.h"

static const char help[] =
	"Usage: cli-sandbox-ctl models catalog [--json]\n"
	"       cli-sandbox-ctl [--endpoint NAME] models list|pull MODEL|use MODEL [--pull] [--json]\n"
	"An Ollama endpoint's models (the selected endpoint, or --endpoint NAME):\n"
	"  catalog     models known to call tools well\n"
	"  list        the installed ones, '*' the endpoint's, and whether each calls tools\n"
	"  pull MODEL  fetch it, with a progress bar on a terminal (plain lines otherwise)\n"
	"  use MODEL   make it the endpoint's model (--pull fetches it when missing)\n";

static const char bad_model[] =
	"bad model name: use at most 128 letters, digits and . _ : / @ + - (starting with a letter or digit), e.g. qwen3:8b or org/Model-7B";

struct ollama_ep {
	char base[1024];
	struct endpoint ep;
	struct endpoints *eps;  /* the file, for use */
	char path[4096];
};

/* The named (else selected) endpoint, which must be an Ollama. */
static int ollama_endpoint(const char *name, struct ollama_ep *o, struct cs_error *err)
{
	char cur[EP_NAME_MAX + 2];
	struct endpoint *e;

	if (!name) {
		home_current(cur, sizeof(cur));
		if (!cur[0])
			return cs_fail(err, CS_EXIT_CONFIG, "no endpoint selected: pass --endpoint NAME, or choose one with 'cli-sandbox endpoints use NAME'");
		name = cur;
	}
	if (!(o->eps = calloc(1, sizeof(*o->eps))))
		return cs_fail(err, CS_EXIT_OSERR, "out of memory");
	if (home_file("endpoints", o->path, sizeof(o->path), err) != 0 || endpoints_load(o->path, o->eps, err) != 0)
		return -1;
	if (!(e = endpoints_find(o->eps, name)))  /* name met the name rule: safe to print */
		return cs_fail(err, CS_EXIT_CONFIG, "no endpoint named '%s': see 'cli-sandbox endpoints list'", name);
	o->ep = *e;
	if (strcmp(e->type, "ollama") != 0 && !(e->speaks & CS_API_OLLAMA))
		return cs_fail(err, CS_EXIT_CONFIG,
			       "endpoint '%s' is not an Ollama endpoint (type %s): models works with Ollama only; choose one with --endpoint NAME",
			       e->name, e->type[0] ? e->type : "unknown");
	probe_root(e->url, o->base, sizeof(o->base));
	return 0;
}

static int installed(const struct ollama_ep *o, struct ollama_models *m, struct cs_error *err)
{
	struct http_answer a;
	int rc;

	if (ollama_request(o->base, "/api/tags", NULL, &a, err) != 0)
		return -1;
	rc = a.status == 200 ? ollama_parse_tags(a.body, a.len, m, err)
			     : cs_fail(err, CS_EXIT_CONFIG, "Ollama at %s answers /api/tags with HTTP %ld: check that the endpoint is an Ollama server", o->base, a.status);
	free(a.body);
	return rc;
}

static bool calls_tools(const struct ollama_ep *o, const char *model)
{
	json_t *req = json_pack("{s:s}", "model", model);
	char *body = req ? json_dumps(req, JSON_COMPACT) : NULL;
	struct http_answer a = { 0 };
	struct cs_error err;
	bool tools = false;

	if (body && ollama_request(o->base, "/api/show", body, &a, &err) == 0)
		tools = a.status == 200 && ollama_show_has_tools(a.body, a.len);
	free(a.body);
	free(body);
	json_decref(req);
	return tools;
}

static int catalog(bool json)
{
	json_t *arr = json ? json_array() : NULL;

	if (!json)
		printf("%-18s %-6s %-7s %s\n", "MODEL", "RAM", "DISK", "NOTE");
	for (const struct catalog_model *c = models_catalog; c->name; c++) {
		if (json)
			json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:s}", "name", c->name, "ram", c->ram, "disk", c->disk, "note", c->note));
		else
			printf("%-18s %-6s %-7s %s\n", c->name, c->ram, c->disk, c->note);
	}
	if (json)
		return ctl_print_json(arr);
	puts("pull one with: cli-sandbox models pull MODEL; then: cli-sandbox models use MODEL");
	return 0;
}

static int list(struct ollama_ep *o, bool json)
{
	struct ollama_models *m = calloc(1, sizeof(*m));
	struct cs_error err;
	json_t *arr;

	if (!m)
		return ctl_usage("out of memory");
	if (installed(o, m, &err) != 0) {
		free(m);
		return ctl_fail(&err);
	}
	if (!json && m->n == 0) {
		printf("no models installed on '%s': see 'cli-sandbox models catalog', then 'cli-sandbox models pull MODEL'\n", o->ep.name);
		free(m);
		return 0;
	}
	arr = json_array();
	for (size_t i = 0; i < m->n; i++) {
		bool tools = calls_tools(o, m->name[i]), mine = strcmp(m->name[i], o->ep.model) == 0;

		if (json)
			json_array_append_new(arr, json_pack("{s:s, s:b, s:b}", "name", m->name[i], "tools", tools, "selected", mine));
		else
			printf("%s %-24s %s\n", mine ? "*" : " ", m->name[i], tools ? "calls tools" : "no tool calls (a tool-driven CLI cannot use it)");
	}
	free(m);
	if (json)
		return ctl_print_json(arr);
	json_decref(arr);
	return 0;
}

struct pull_state {
	struct pull_view view;
	bool json;
	char last_status[OLLAMA_TEXT_MAX];
	char error[OLLAMA_TEXT_MAX * 2];
};

static void on_pull_line(const char *line, size_t len, void *arg)
{
	struct pull_state *s = arg;
	struct pull_event ev;
	char out[1024];

	if (ollama_parse_pull_line(line, len, &ev) != 0)
		return;  /* not one of Ollama's lines: nothing to show */
	if (ev.status[0])
		snprintf(s->last_status, sizeof(s->last_status), "%s", ev.status);
	if (ev.error[0])
		snprintf(s->error, sizeof(s->error), "%s", ev.error);
	pull_show(&s->view, &ev, out, sizeof(out));
	if (!s->json && out[0]) {
		fputs(out, stdout);
		fflush(stdout);
	}
}

/* Pulls model with progress; 0 when Ollama said "success". */
static int pull(const struct ollama_ep *o, const char *model, bool json, bool *pulled)
{
	struct pull_state *s = calloc(1, sizeof(*s));
	struct cs_error err;
	char end[8], q[EP_MODEL_MAX * 4 + 8];
	long status;
	int rc;

	*pulled = false;
	if (!s)
		return ctl_usage("out of memory");
	s->json = json;
	s->view.tty = !json && isatty(STDOUT_FILENO);
	rc = ollama_pull(o->base, model, on_pull_line, s, &status, &err);
	pull_end(&s->view, end, sizeof(end));
	if (!json)
		fputs(end, stdout);
	fflush(stdout);
	*pulled = rc == 0 && s->view.ok && !s->view.failed;
	if (json && rc == 0)
		ctl_print_json(json_pack("{s:s, s:s, s:b, s:s, s:s?}", "endpoint", o->ep.name, "model", model, "pulled", *pulled,
					 "status", s->last_status, "error", s->error[0] ? s->error : NULL));
	free(s);
	if (rc != 0)
		return ctl_fail(&err);
	if (!*pulled) {
		sh_quote(model, q, sizeof(q));
		return ctl_usage("pulling %s failed: check the name in 'cli-sandbox models catalog' or on ollama.com/library", q);
	}
	return 0;
}

static int use(struct ollama_ep *o, const char *model, bool want_pull, bool json)
{
	struct ollama_models *m = calloc(1, sizeof(*m));
	struct endpoint *e;
	struct cs_error err;
	char q[EP_MODEL_MAX * 4 + 8];
	bool has, pulled = false;
	int rc;

	if (!m)
		return ctl_usage("out of memory");
	rc = installed(o, m, &err);
	has = rc == 0 && ollama_models_has(m, model);
	free(m);
	if (rc != 0)
		return ctl_fail(&err);
	sh_quote(model, q, sizeof(q));
	if (!has) {
		if (!want_pull && !json && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO)) {
			char ans[16] = "";
			printf("%s is not installed on %s; pull it now? [y/N] ", model, o->ep.name);
			fflush(stdout);
			want_pull = fgets(ans, sizeof(ans), stdin) &&
				    (strcmp(ans, "y\n") == 0 || strcmp(ans, "Y\n") == 0 || strcmp(ans, "yes\n") == 0);
		}
		if (!want_pull)
			return ctl_usage("model %s is not installed on endpoint '%s': pull it with 'cli-sandbox models pull %s', or run 'cli-sandbox models use %s --pull'",
					 model, o->ep.name, q, q);
		if ((rc = pull(o, model, json, &pulled)) != 0)
			return rc;
	}
	e = endpoints_find(o->eps, o->ep.name);
	snprintf(e->model, sizeof(e->model), "%s", model);
	if (endpoints_save(o->path, o->eps, &err) != 0)
		return ctl_fail(&err);
	if (json)
		return ctl_print_json(json_pack("{s:s, s:s, s:b}", "endpoint", o->ep.name, "model", model, "pulled", pulled));
	printf("endpoint '%s' now uses %s\n", o->ep.name, model);
	return 0;
}

int cmd_models(int argc, char **argv)
{
	const char *name = NULL, *sub = NULL, *model = NULL;
	struct ollama_ep o = { .eps = NULL };
	struct cs_error err;
	bool json, want_pull = false;
	int rc;

	if (ctl_help(argc, argv, help))
		return 0;
	json = ctl_take_json(&argc, argv);
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--endpoint") == 0 && i + 1 < argc) {
			name = argv[++i];
			if (!valid_endpoint_name(name, strlen(name)))
				return ctl_usage("bad endpoint name: use letters, digits, '-', '_' and '.', starting with a letter or digit");
		} else if (strcmp(argv[i], "--pull") == 0 && sub && strcmp(sub, "use") == 0) {
			want_pull = true;
		} else if (!sub && argv[i][0] != '-') {
			sub = argv[i];
		} else if (sub && !model && argv[i][0] != '-' && (strcmp(sub, "pull") == 0 || strcmp(sub, "use") == 0)) {
			model = argv[i];
		} else {
			return ctl_usage("usage: cli-sandbox models catalog|list|pull MODEL|use MODEL [--pull]");
		}
	}
	if (!sub)
		sub = "list";
	if (strcmp(sub, "catalog") == 0 && !model)
		return catalog(json);
	if (strcmp(sub, "list") && strcmp(sub, "pull") && strcmp(sub, "use"))
		return ctl_usage("unknown models command: use catalog, list, pull MODEL or use MODEL [--pull]");
	if (strcmp(sub, "list") != 0 && !model)
		return ctl_usage("usage: cli-sandbox models %s", strcmp(sub, "pull") == 0 ? "pull MODEL" : "use MODEL [--pull]");
	if (model && !valid_model(model, strlen(model)))  /* before any request: the name goes to the server */
		return ctl_usage("%s", bad_model);
	if (ollama_endpoint(name, &o, &err) != 0)
		rc = ctl_fail(&err);
	else if (strcmp(sub, "list") == 0)
		rc = list(&o, json);
	else if (strcmp(sub, "pull") == 0) {
		bool pulled;
		rc = pull(&o, model, json, &pulled);
	} else
		rc = use(&o, model, want_pull, json);
	free(o.eps);
	return rc;
}
