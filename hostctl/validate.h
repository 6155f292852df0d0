/* The strict rules every value from a person, a file or the environment
 * meets before it is stored, planned with or printed.  Each check fills
 * cs_error with one line naming the value's problem and the fix. */
#ifndef CLI_SANDBOX_HOSTCTL_VALIDATE_H
#define CLI_SANDBOX_HOSTCTL_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/status.h"

#define EP_NAME_MAX 63
#define EP_MODEL_MAX 128
#define EP_KEY_ENV_MAX 63
#define EP_URL_MAX 400

/* Endpoint names: [A-Za-z0-9._-], starting with a letter or digit (the
 * runner's valid_name), at most EP_NAME_MAX bytes. */
bool valid_endpoint_name(const char *s, size_t n);
/* Model names: [A-Za-z0-9._:/@+-], starting with a letter or digit, at most
 * EP_MODEL_MAX bytes (Ollama's qwen3:8b and hf.co/org/model:Q4_K_M, vLLM's
 * org/Model-7B, a digest after '@'): nothing a shell or a JSON string would
 * read. */
bool valid_model(const char *s, size_t n);
/* A variable's name: [A-Za-z_][A-Za-z0-9_]*, at most EP_KEY_ENV_MAX. */
bool valid_key_env(const char *s, size_t n);
/* An endpoint type: anthropic, openai, ollama or gemini. */
bool valid_type(const char *s, size_t n);

/* A base URL: http:// or https://, a host, printable ASCII without blanks,
 * quotes, backslashes or '#'/'?' parts, and no userinfo (a password in a
 * URL would land in the file, in every probe and on engines' command
 * lines).  The error names the fix. */
int check_url(const char *s, size_t n, struct cs_error *err);

/* The URL's host (no port, no brackets) into out; false when none fits. */
bool url_host(const char *url, char *out, size_t len);

#endif
