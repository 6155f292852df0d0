#include "hostctl/doctor_report.h"

#include <stdlib.h>

void doctor_begin(struct doctor_report *r, FILE *out, bool json)
{
	r->out = out;
	r->json = json;
	r->failed = 0;
	r->checks = json ? json_array() : NULL;
}

void doctor_check(struct doctor_report *r, const char *name, bool ok, const char *detail, const char *fix)
{
	if (!ok)
		r->failed++;
	if (!r->json) {
		if (ok)
			fprintf(r->out, "ok   %s: %s\n", name, detail);
		else
			fprintf(r->out, "FAIL %s: %s\n     fix: %s\n", name, detail, fix ? fix : "");
		fflush(r->out);
		return;
	}
	/* json_string refuses text that is not UTF-8: then the bytes as they are
	 * would be lost, so a stand-in says so rather than an empty detail. */
	json_t *c = json_object(), *d = json_string(detail);

	json_object_set_new(c, "name", json_string(name));
	json_object_set_new(c, "ok", json_boolean(ok));
	json_object_set_new(c, "detail", d ? d : json_string("(not valid UTF-8)"));
	if (!ok) {
		json_t *f = json_string(fix ? fix : "");
		json_object_set_new(c, "fix", f ? f : json_string("(not valid UTF-8)"));
	}
	json_array_append_new(r->checks, c);
}

int doctor_end(struct doctor_report *r)
{
	int status = r->failed == 0 ? 0 : 1;

	if (r->json) {
		json_t *o = json_object();
		char *s;

		json_object_set_new(o, "ok", json_boolean(status == 0));
		json_object_set_new(o, "checks", r->checks);
		s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
		json_decref(o);
		if (s)
			fprintf(r->out, "%s\n", s);
		free(s);
		r->checks = NULL;
	}
	return status;
}
