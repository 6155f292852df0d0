/* The whole start, as data: every stage's result, in pipeline order.
 *
 * main() fills it stage by stage; --check and --dry-run print it
 * (report.h), a real start carries it out.  It owns everything it holds:
 * pipeline_free() releases it all, whichever stage stopped. */
#ifndef CLI_SANDBOX_PIPELINE_H
#define CLI_SANDBOX_PIPELINE_H

#include <stdbool.h>

#include "base/config.h"
#include "base/credentials.h"
#include "base/status.h"
#include "caps/user_db.h"
#include "entrypoint/command.h"
#include "netfilter/model.h"
#include "profiles/policy.h"

struct pipeline {
	struct cs_config cfg;
	struct cs_credentials creds; /* the credentials file's variables the command gets */
	char **start_env;            /* the environment plus creds: what the command is planned from */
	struct cs_user user;
	struct command command;
	char **env;                  /* the command's whole environment */
	struct policy policy;
	struct nf_ruleset ruleset;   /* empty when policy.firewall is false */
	char digest[65];             /* SHA-256 of the canonical nft text, "" without a firewall */
	bool pid1;
};

/* Fills pl->digest from the ruleset; -1 with err (71) when memory runs out. */
int pipeline_digest(struct pipeline *pl, struct cs_error *err);

void pipeline_free(struct pipeline *pl);

/* Frees what only the start needed (the policy, the ruleset, and the
 * command's environment with the credentials, wiped first), so PID 1 carries
 * none of it while the command runs. */
void pipeline_shed_start(struct pipeline *pl);

#endif
