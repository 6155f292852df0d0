/* The report of a start: what --check and --dry-run print and what a real
 * start logs, all read from the pipeline (pipeline.h). */
#ifndef CLI_SANDBOX_REPORT_H
#define CLI_SANDBOX_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "entrypoint/pipeline.h"
#include "profiles/policy.h"

/* --check: one line on out. */
void report_summary(const struct pipeline *pl, FILE *out);
/* --dry-run=nft: "#" plan lines, then the ruleset that `nft -f` loads. */
int report_nft(const struct pipeline *pl, FILE *out);
/* --dry-run=json: one JSON object. */
int report_json(const struct pipeline *pl, FILE *out);

/* The log line of a real start once the firewall is up: profile,
 * destinations, counts and the digest the dry-run printed. */
void report_firewall_up(const struct pipeline *pl);

/* The destinations with their origins, shortened to fit buf. */
void report_destinations(const struct policy *p, char *buf, size_t len);

#endif
