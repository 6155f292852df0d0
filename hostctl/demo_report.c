/* The demo's report (docs/hostctl.md, "demo-report"): the verdict of
 * demo_judge.h as the text the runner's sh printed, a line a step and a
 * summary, or as its one JSON object. */
#include "hostctl/demo_report.h"

#include <stdlib.h>
#include <string.h>

#include "base/status.h"

static const char *str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static void report_text(const struct demo_run *r, json_t *v, FILE *out)
{
	json_t *steps = json_object_get(v, "steps"), *blocked = json_object_get(v, "blocked"), *s;
	const char *sep = "";
	size_t i;

	json_array_foreach (steps, i, s)
		fprintf(out, "%s %-10s %s\n", json_is_true(json_object_get(s, "ok")) ? "ok  " : "FAIL", str(s, "name"), str(s, "detail"));
	if (json_array_size(blocked) > 0)
		fputs("     the init's block log:\n", out);
	json_array_foreach (blocked, i, s)
		fprintf(out, "       %s\n", json_string_value(s));
	fprintf(out, "\nsummary (%s under %s, %ld s; the CLI exited %d, not judged):\n", r->cli, r->engine, r->seconds, r->cli_exit);
	if (json_is_true(json_object_get(v, "ok"))) {
		fprintf(out, "  written:      hello.txt in the workspace, owned by uid %lu\n", r->owner);
		fprintf(out, "  refused:      %s, %s and %s (on the sandbox's network), at once; the firewall's refusals in its block log\n",
			DEMO_OUTSIDE_1, DEMO_OUTSIDE_2, r->probe);
		fprintf(out, "  no key:       the sandbox saw no value of %s, only the key broker's run token\n",
			r->key_yours ? "your key" : "the throwaway key");
		fprintf(out, "  capabilities: none, as uid %lu\n", r->inside);
		fprintf(out, "  ruleset:      sha256 %s\n", str(v, "ruleset_sha256"));
	} else {
		fputs("  FAILED:       ", out);
		json_array_foreach (steps, i, s)
			if (!json_is_true(json_object_get(s, "ok"))) {
				fprintf(out, "%s%s", sep, str(s, "name"));
				sep = ", ";
			}
		fputs(" (the lines above say why; --keep keeps the run's output)\n", out);
	}
	if (r->keep)
		fprintf(out, "  folder:       %s, kept: %s\n", r->folder, r->folder);
	else
		fprintf(out, "  folder:       %s, removed (--keep keeps it)\n", r->folder);
}

static int report_json(const struct demo_run *r, json_t *v, FILE *out)
{
	json_t *o = json_object(), *names = json_array();
	char *s = NULL;
	bool built = o && names;

	for (size_t i = 0; built && i < 3; i++)
		built = json_array_append_new(names, demo_jstr(r->names[i] ? r->names[i] : "")) == 0;
	/* The members in the order the runner's printf wrote them. */
	built = built && json_object_set(o, "ok", json_object_get(v, "ok")) == 0 &&
		json_object_set_new(o, "cli", demo_jstr(r->cli)) == 0 && json_object_set_new(o, "engine", demo_jstr(r->engine)) == 0 &&
		json_object_set_new(o, "image", demo_jstr(r->image)) == 0 && json_object_set_new(o, "folder", demo_jstr(r->folder)) == 0 &&
		json_object_set_new(o, "kept", json_boolean(r->keep)) == 0 &&
		json_object_set_new(o, "workspace", demo_jstr(r->workspace)) == 0 && json_object_set_new(o, "model", demo_jstr(r->model)) == 0 &&
		json_object_set_new(o, "probe", demo_jstr(r->probe)) == 0 &&
		json_object_set_new(o, "key", json_string(r->key_yours ? "yours" : "throwaway")) == 0 &&
		json_object_set_new(o, "cli_exit", json_integer(r->cli_exit)) == 0 &&
		json_object_set_new(o, "seconds", json_integer(r->seconds)) == 0 &&
		json_object_set(o, "ruleset_sha256", json_object_get(v, "ruleset_sha256")) == 0 &&
		json_object_set(o, "blocked", json_object_get(v, "blocked")) == 0 && json_object_set(o, "names", names) == 0 &&
		json_object_set(o, "steps", json_object_get(v, "steps")) == 0;
	if (built)
		s = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII);
	if (s)
		fprintf(out, "%s\n", s);
	free(s);
	json_decref(names);
	json_decref(o);
	return s ? 0 : CS_EXIT_OSERR;
}

int demo_report(const struct demo_run *r, bool json, FILE *out)
{
	json_t *v = demo_judge(r);
	int rc = 0;

	if (!v)
		return CS_EXIT_OSERR;
	if (json)
		rc = report_json(r, v, out);
	else
		report_text(r, v, out);
	if (rc == 0)
		rc = json_is_true(json_object_get(v, "ok")) ? 0 : 1;
	json_decref(v);
	return rc;
}
