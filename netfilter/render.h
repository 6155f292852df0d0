/* Renderers of the ruleset model that produce text for operators and tools. */
#ifndef CLI_SANDBOX_RENDER_H
#define CLI_SANDBOX_RENDER_H

#include <jansson.h>
#include <stdio.h>

#include "netfilter/model.h"

/* nft text that `nft -f` loads as is: creates the table, deletes it, then
 * re-creates it with its content, so loading replaces any earlier copy in
 * one transaction.  Returns 0, or -1 on a write error. */
int render_nft(const struct nf_ruleset *rs, FILE *out);

/* The same text in a malloc'd string (the canonical text behind the SHA-256
 * digest); NULL on allocation failure. */
char *render_nft_string(const struct nf_ruleset *rs);

/* {"nftables": [ ... ]} in the libnftables JSON schema, for `nft -j -f`.
 * Returns a new reference, or NULL when memory runs out. */
json_t *render_json(const struct nf_ruleset *rs);

#endif
