/* The whole start, as data: every stage's result, printed by --check and
 * --dry-run and logged by the real start. */
#ifndef CLI_SANDBOX_PLAN_H
#define CLI_SANDBOX_PLAN_H

#include <stdbool.h>
#include <stdio.h>

#include "caps/user_db.h"
#include "entrypoint/config.h"
#include "entrypoint/exec_plan.h"
#include "netfilter/model.h"
#include "profiles/policy.h"

struct start_plan {
	const struct cs_config *cfg;
	const struct cs_user *user;
	const struct policy *policy;
	const struct nf_ruleset *ruleset;  /* NULL when the firewall is skipped */
	const struct exec_plan *exec;
	char digest[65];                   /* SHA-256 of the canonical nft text */
	bool pid1;
};

/* Fills plan->digest from the ruleset ("" without one); -1 on allocation failure. */
int plan_digest(struct start_plan *plan);

/* --check: one line on out. */
void plan_print_summary(const struct start_plan *plan, FILE *out);
/* --dry-run=nft: "#" plan lines, then the ruleset that `nft -f` loads. */
int plan_print_nft(const struct start_plan *plan, FILE *out);
/* --dry-run=json: one JSON object. */
int plan_print_json(const struct start_plan *plan, FILE *out);

/* The destinations with their origins, for the log line of a real start. */
void plan_describe_destinations(const struct policy *p, char *buf, size_t len);

#endif
