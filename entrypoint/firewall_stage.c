#include "entrypoint/firewall_stage.h"

#include <stdbool.h>

#include "entrypoint/report.h"
#include "netfilter/apply.h"

int pipeline_program_firewall(struct pipeline *pl, struct cs_error *err)
{
	bool without_log;

	if (firewall_apply(&pl->ruleset, &without_log, err) || (without_log && pipeline_digest(pl, err)))
		return -1;
	report_firewall_up(pl);
	return 0;
}
