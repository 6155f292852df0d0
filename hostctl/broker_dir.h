/* The key broker's directory (docs/broker.md): one directory on memory
 * (tmpfs), mounted read-only at /run/broker in the broker's container:
 *   DIR/broker.conf    nginx map/upstream lines: API, models, model policy, upstream
 *   DIR/key            the endpoint's key, mode 0400, owned by the broker's uid as root
 *   DIR/tokens/SHA256  one empty file per live run token (revoke = delete)
 * What the runner's host/lib/broker.sh did, in C; the key and the tokens
 * come and go on pipes, never in an argument. */
#ifndef CLI_SANDBOX_HOSTCTL_BROKER_DIR_H
#define CLI_SANDBOX_HOSTCTL_BROKER_DIR_H

#include <stdbool.h>
#include <stddef.h>

#include "base/status.h"

#define BROKER_UID 1002
#define BROKER_TOKEN_LEN 69  /* "csbt_" and 64 hex digits */

/* The config file's text for API (anthropic|openai|gemini), the upstream
 * URL http[s]://HOST[:PORT][/PREFIX] (no userinfo), MODELS (comma list, ""
 * lets every model through), POLICY (refuse|rewrite) and FORM (x-api-key|
 * bearer|x-goog-api-key; "" the API's own).  Pure. */
int broker_config_text(const char *api, const char *url, const char *models, const char *policy, const char *form,
		       char *out, size_t len, struct cs_error *err);

/* A new DIR (mode 0711, tokens/ 0711) under parent, which must be on tmpfs. */
int broker_dir_new(const char *parent, char *out, size_t len, struct cs_error *err);
int broker_config_write(const char *dir, const char *text, struct cs_error *err);
/* The key from fd (up to 8 KiB, one line: a trailing newline dropped). */
int broker_key_write(const char *dir, int fd, struct cs_error *err);
/* A fresh token into token (BROKER_TOKEN_LEN + 1 bytes), its hash's file made. */
int broker_token_add(const char *dir, char *token, struct cs_error *err);
int broker_token_revoke(const char *dir, const char *token, struct cs_error *err);
/* Removes DIR (only a cli-sandbox-broker.* directory) and what is in it. */
void broker_dir_remove(const char *dir);

#endif
