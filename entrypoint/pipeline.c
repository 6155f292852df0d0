#include "entrypoint/pipeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sha256.h"
#include "entrypoint/command.h"
#include "netfilter/render.h"

/* The digest is of the nft text, streamed into SHA-256 as it is rendered:
 * a 50,000-prefix ruleset is a megabyte of text that is never held whole. */
static ssize_t feed_digest(void *cookie, const char *buf, size_t n)
{
	sha256_update(cookie, buf, n);
	return (ssize_t)n;
}

int pipeline_digest(struct pipeline *pl, struct cs_error *err)
{
	cookie_io_functions_t io = { .write = feed_digest };
	struct sha256 sha;
	FILE *f;
	int rc;

	pl->digest[0] = '\0';
	if (!pl->policy.firewall)
		return 0;
	sha256_init(&sha);
	f = fopencookie(&sha, "w", io);
	if (!f)
		return cs_fail(err, CS_EXIT_OSERR, "out of memory computing the ruleset digest");
	rc = render_nft(&pl->ruleset, f);
	if (fclose(f) != 0 || rc != 0)
		return cs_fail(err, CS_EXIT_OSERR, "out of memory computing the ruleset digest");
	sha256_final_hex(&sha, pl->digest);
	return 0;
}

/* The command's environment holds the keys: wiped before it is freed. */
static void free_secrets(struct pipeline *pl)
{
	for (size_t i = 0; pl->env && pl->env[i]; i++)
		explicit_bzero(pl->env[i], strlen(pl->env[i]));
	command_environ_free(pl->env);
	pl->env = NULL;
	free(pl->start_env);  /* borrowed strings: the environment's and creds' */
	pl->start_env = NULL;
	credentials_free(&pl->creds);
}

void pipeline_free(struct pipeline *pl)
{
	free_secrets(pl);
	command_free(&pl->command);
	ruleset_free(&pl->ruleset);
	policy_free(&pl->policy);
	config_free(&pl->cfg);
}

void pipeline_shed_start(struct pipeline *pl)
{
	ruleset_free(&pl->ruleset);
	policy_free(&pl->policy);
	free_secrets(pl);
}
