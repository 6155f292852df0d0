#include "hostctl/ollama.h"
#include "hostctl/printable.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static json_t *parse(const char *body, size_t len)
{
	return json_loadb(body, len, JSON_REJECT_DUPLICATES, NULL);
}

int ollama_parse_tags(const char *body, size_t len, struct ollama_models *out, struct cs_error *err)
{
	json_t *root = parse(body, len), *models, *m;
	size_t i;

	out->n = out->skipped = 0;
	models = json_is_object(root) ? json_object_get(root, "models") : NULL;
	if (!json_is_array(models)) {
		json_decref(root);
		return cs_fail(err, CS_EXIT_CONFIG, "the endpoint's /api/tags is not Ollama's list of models: check that the endpoint is an Ollama server");
	}
	json_array_foreach(models, i, m) {
		const char *name = json_string_value(json_object_get(m, "name"));

		if (!name || !valid_model(name, strlen(name)) || out->n == OLLAMA_MODELS_MAX) {
			out->skipped++;
			continue;
		}
		snprintf(out->name[out->n++], sizeof(out->name[0]), "%s", name);
	}
	json_decref(root);
	return 0;
}

bool ollama_models_has(const struct ollama_models *m, const char *model)
{
	char tagged[EP_MODEL_MAX + 16];

	snprintf(tagged, sizeof(tagged), "%s%s", model, strchr(model, ':') ? "" : ":latest");
	for (size_t i = 0; i < m->n; i++)
		if (strcmp(m->name[i], model) == 0 || strcmp(m->name[i], tagged) == 0)
			return true;
	return false;
}

bool ollama_show_has_tools(const char *body, size_t len)
{
	json_t *root = parse(body, len), *caps, *c;
	bool tools = false;
	size_t i;

	caps = json_is_object(root) ? json_object_get(root, "capabilities") : NULL;
	json_array_foreach(caps, i, c)
		tools = tools || (json_is_string(c) && strcmp(json_string_value(c), "tools") == 0);
	json_decref(root);
	return tools;
}

static long long count(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_integer(v) && json_integer_value(v) >= 0 ? (long long)json_integer_value(v) : -1;
}

int ollama_parse_pull_line(const char *line, size_t len, struct pull_event *ev)
{
	json_t *o = parse(line, len), *e;

	memset(ev, 0, sizeof(*ev));
	ev->total = ev->completed = -1;
	if (!json_is_object(o)) {
		json_decref(o);
		return -1;
	}
	printable_copy(json_string_value(json_object_get(o, "status")), ev->status, sizeof(ev->status));
	e = json_object_get(o, "error");
	if (e)  /* a string, as Ollama sends; anything else is still an error */
		printable_copy(json_is_string(e) ? json_string_value(e) : "an error the server did not describe", ev->error, sizeof(ev->error));
	ev->total = count(o, "total");
	ev->completed = count(o, "completed");
	json_decref(o);
	return 0;
}

/* Appends to out; keeps it terminated when full. */
static void put(char *out, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void put(char *out, size_t len, const char *fmt, ...)
{
	size_t used = strlen(out);
	va_list ap;

	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(out + used, len - used, fmt, ap);
	va_end(ap);
}

/* The slot of status's last percentage (the oldest one is reused when full). */
static int *last_pct(struct pull_view *v, const char *status)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		if (strcmp(v->status[i], status) == 0)
			return &v->pct[i];
	i = v->n < PULL_STATUSES ? v->n++ : 0;
	snprintf(v->status[i], sizeof(v->status[i]), "%s", status);
	v->pct[i] = -1;
	return &v->pct[i];
}

void pull_show(struct pull_view *v, const struct pull_event *ev, char *out, size_t len)
{
	out[0] = '\0';
	if (ev->error[0]) {
		put(out, len, "%serror: %s\n", v->bar_open ? "\n" : "", ev->error);
		v->bar_open = false;
		v->failed = true;
		return;
	}
	if (ev->total > 0 && ev->completed >= 0) {
		long long done = ev->completed > ev->total ? ev->total : ev->completed;
		int pct = (int)(done * 100 / ev->total);
		double gb_done = (double)done / 1e9, gb_total = (double)ev->total / 1e9;
		int *last = last_pct(v, ev->status);

		if (v->tty) {
			char bar[26];

			for (int i = 0; i < 25; i++)
				bar[i] = i < pct / 4 ? '#' : '-';
			bar[25] = '\0';
			put(out, len, "\r%s [%s] %3d%% %.1f GB of %.1f GB", ev->status, bar, pct, gb_done, gb_total);
			v->bar_open = true;
		} else if (pct != *last) {
			put(out, len, "%s: %d%% (%.1f GB of %.1f GB)\n", ev->status, pct, gb_done, gb_total);
		}
		*last = pct;
		return;
	}
	if (!ev->status[0])
		return;  /* nothing to show (a line of only a digest) */
	put(out, len, "%s%s\n", v->bar_open ? "\n" : "", ev->status);
	v->bar_open = false;
	if (strcmp(ev->status, "success") == 0)
		v->ok = true;
}

void pull_end(struct pull_view *v, char *out, size_t len)
{
	out[0] = '\0';
	if (v->bar_open)
		put(out, len, "\n");
	v->bar_open = false;
}
