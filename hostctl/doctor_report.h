/* doctor's results, one check at a time: as text, each line printed as it
 * is found (`ok   NAME: DETAIL`, or `FAIL NAME: DETAIL` and `     fix: FIX`),
 * or with --json one object at the end:
 *   {"ok":BOOL,"checks":[{"name":…,"ok":…,"detail":…[,"fix":…]}…]}
 * (a fix only on a failed check). */
#ifndef CLI_SANDBOX_HOSTCTL_DOCTOR_REPORT_H
#define CLI_SANDBOX_HOSTCTL_DOCTOR_REPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

struct doctor_report {
	FILE *out;
	bool json;
	int failed;
	json_t *checks;  /* --json only */
};

void doctor_begin(struct doctor_report *r, FILE *out, bool json);
/* One result; fix is for a failed check (NULL: ""). */
void doctor_check(struct doctor_report *r, const char *name, bool ok, const char *detail, const char *fix);
/* Prints the JSON object (--json); returns doctor's exit status: 0 when
 * every check passed, 1 otherwise. */
int doctor_end(struct doctor_report *r);

#endif
