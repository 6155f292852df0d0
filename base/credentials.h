/* The credentials file: the CLI's own credential variables, handed to the
 * init in a read-only file instead of the container's environment, so that
 * the engine's inspect output never holds a key (docs/init.md,
 * "Credentials file").
 *
 * Format: one `NAME=VALUE` line per variable, each ending in a newline (the
 * last one may lack it).  VALUE is every byte after the first '=' up to the
 * newline: any byte but NUL and newline.  No comments, no blank lines, no
 * quoting, no name twice.  NAME must be a credential variable (below).
 *
 * The parser is pure (a buffer in, entries out); reading the file safely is
 * the entrypoint's stage (entrypoint/credentials_stage.h). */
#ifndef CLI_SANDBOX_BASE_CREDENTIALS_H
#define CLI_SANDBOX_BASE_CREDENTIALS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/status.h"

/* Where the host script mounts it (read-only). */
#define CS_CREDENTIALS_PATH "/run/cli-sandbox-credentials/env"

/* The file's largest accepted size: keys are a few hundred bytes each. */
#define CS_CREDENTIALS_MAX_BYTES (64 * 1024)

struct cs_credentials {
	char **entries;  /* "NAME=VALUE", malloc'd; the values are secrets */
	size_t n, cap;
};

/* A credential variable: upper-case letters, digits and '_', starting with
 * a letter, ending in _API_KEY or _TOKEN (every variable of the host
 * script's CLI table does), and not in the init's own namespaces
 * (CLI_SANDBOX_*, TASK_AGENT_*) nor the loader's (LD_*).  A positive rule:
 * PATH, HOME, NODE_OPTIONS, SKIP_EGRESS_FIREWALL and every other variable
 * that steers the init, the loader or a CLI's runtime fail it. */
bool credential_name_ok(const char *name, size_t len);

/* Parses len bytes of the file into *out (which the caller zeroes).  -1 with
 * err (78) naming the line and the fix; the message never holds a value. */
int credentials_parse(const char *data, size_t len, struct cs_credentials *out, struct cs_error *err);

/* The value of entry i is the text after its first '='. */
const char *credential_value(const char *entry);

/* Wipes the values, then frees. */
void credentials_free(struct cs_credentials *c);

#endif
