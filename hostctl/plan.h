/* The plan: which path a CLI's requests take to an endpoint, a pure
 * function of the CLI, what the endpoint speaks (not its type) and whether
 * the key may enter the sandbox.
 *
 *   direct      the CLI talks to the endpoint itself (only with --keys-in:
 *               the key is then in the sandbox)
 *   broker      the CLI talks to the key broker, which adds the key (the
 *               default: keys stay out)
 *   translator  broker, then a translator to an API the endpoint has: only
 *               where the endpoint lacks every API the CLI speaks
 *   refused     no path; the reason names what works
 */
#ifndef CLI_SANDBOX_HOSTCTL_PLAN_H
#define CLI_SANDBOX_HOSTCTL_PLAN_H

#include <stdbool.h>

#include "hostctl/endpoint_file.h"

enum route { ROUTE_DIRECT, ROUTE_BROKER, ROUTE_TRANSLATOR, ROUTE_REFUSED };

#define PLAN_VARS 3

struct plan {
	char cli[16];
	char endpoint[EP_NAME_MAX + 1];
	enum route route;
	unsigned api;           /* what the CLI speaks on the wire (enum cs_api) */
	unsigned upstream_api;  /* what the endpoint is asked */
	char upstream[EP_URL_MAX + 16];
	char model[EP_MODEL_MAX + 1];
	char key_env[EP_KEY_ENV_MAX + 1];
	bool key_in_sandbox;
	const char *token;      /* "broker" (a run token), "key" (the endpoint's key), "none" */
	const char *token_vars[PLAN_VARS];  /* the variables the CLI reads it from */
	const char *env[PLAN_VARS];         /* "NAME=VALUE" the CLI also gets */
	char reason[512];
	char fix[768];          /* a command line, every value shell-quoted; "" when none */
};

/* What an endpoint recorded with only a type is taken to speak. */
unsigned default_speaks(const char *type);

/* The plan of cli against ep (keys_in: the person asked for the key in the
 * sandbox).  Always fills p; returns 0, or -1 when the route is refused. */
int plan_make(const char *cli, const struct endpoint *ep, bool keys_in, struct plan *p);

const char *route_word(enum route r);

#endif
