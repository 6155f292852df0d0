#include "entrypoint/pipeline.h"

#include <stdlib.h>
#include <string.h>

#include "base/sha256.h"
#include "netfilter/render.h"

int pipeline_digest(struct pipeline *pl, struct cs_error *err)
{
	char *text;

	pl->digest[0] = '\0';
	if (!pl->policy.firewall)
		return 0;
	text = render_nft_string(&pl->ruleset);
	if (!text)
		return cs_fail(err, CS_EXIT_OSERR, "out of memory computing the ruleset digest");
	sha256_hex(text, strlen(text), pl->digest);
	free(text);
	return 0;
}

void pipeline_free(struct pipeline *pl)
{
	command_environ_free(pl->env);
	pl->env = NULL;
	command_free(&pl->command);
	ruleset_free(&pl->ruleset);
	policy_free(&pl->policy);
}

void pipeline_shed_start(struct pipeline *pl)
{
	ruleset_free(&pl->ruleset);
	policy_free(&pl->policy);
}
