/* `cli-sandbox demo`'s report, for cli-sandbox-ctl demo-report. */
#ifndef CLI_SANDBOX_HOSTCTL_DEMO_REPORT_H
#define CLI_SANDBOX_HOSTCTL_DEMO_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "hostctl/demo_judge.h"

/* Judges r and prints the report: a line a step ("ok   NAME DETAIL" or
 * "FAIL NAME DETAIL"), the block log, a summary; with json one object
 * {"ok","cli","engine","image","folder","kept","workspace","model","probe",
 * "key","cli_exit","seconds","ruleset_sha256","blocked","names","steps"}.
 * Returns the exit status: 0 when every step holds, 1 when one does not,
 * 71 when out of memory. */
int demo_report(const struct demo_run *r, bool json, FILE *out);

#endif
