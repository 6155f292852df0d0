/* The plan as the runner reads it: one KEY=VALUE a line, keys in a fixed
 * set, values one line of printable ASCII, read by a POSIX-sh
 *     while IFS='=' read -r k v; do case $k in cli) ...;; esac; done
 * loop without eval (the first '=' splits; env's value is NAME=VALUE).
 *     cli  endpoint  type  url  speaks  route  api  upstream_api  upstream
 *     cli_url  model  key_env  key_var  key_form  broker_api
 *     key_in_sandbox (yes|no)  token (broker|key|placeholder|none)  placeholder
 *     token_var (repeated)  env (repeated, NAME=VALUE)  cli_arg (repeated)
 *     reason  fix
 * (docs/hostctl.md says what each means to the runner).
 * And the same as a JSON object (jansson). */
#ifndef CLI_SANDBOX_HOSTCTL_PLAN_FORMAT_H
#define CLI_SANDBOX_HOSTCTL_PLAN_FORMAT_H

#include <jansson.h>
#include <stdio.h>

#include "hostctl/plan.h"

/* The lines of p into out (NUL-terminated); false when they do not fit. */
bool plan_lines(const struct plan *p, char *out, size_t len);

json_t *plan_json(const struct plan *p);

/* The plan reader (the C twin of the runner's loop, for the tests and the
 * fuzzer): the lines back into a plan.  Refuses an unknown key, a second
 * value for a one-value key, a byte outside printable ASCII, a route or
 * token outside its words, a value that does not fit, and a plan without
 * cli or route.  token_vars point into storage. */
struct plan_read {
	struct plan p;
	char storage[PLAN_VARS][128];
};
int plan_read(const char *text, size_t n, struct plan_read *out, struct cs_error *err);

#endif
