/* The firewall stage of a start: program the pipeline's ruleset and log the
 * start line.  Apart from pipeline.c because it needs the report (which
 * reads the pipeline), so that no two modules include each other. */
#ifndef CLI_SANDBOX_FIREWALL_STAGE_H
#define CLI_SANDBOX_FIREWALL_STAGE_H

#include "base/status.h"
#include "entrypoint/pipeline.h"

/* Programs pl->ruleset (netfilter/apply.h) and logs the start line.  When
 * the kernel took it only without its log rules, they are gone from
 * pl->ruleset and the digest is computed again: the line's digest is always
 * that of the ruleset the kernel holds, as read back.  0, or -1 with err
 * (71). */
int pipeline_program_firewall(struct pipeline *pl, struct cs_error *err);

#endif
