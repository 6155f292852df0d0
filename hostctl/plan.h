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
#define PLAN_ENV_MAX 1024
#define PLAN_ARG_MAX (EP_MODEL_MAX + 16)

struct plan {
	char cli[16];
	char endpoint[EP_NAME_MAX + 1];
	enum route route;
	unsigned api;           /* what the CLI speaks on the wire (enum cs_api) */
	unsigned upstream_api;  /* what the endpoint is asked */
	char upstream[EP_URL_MAX + 16];
	char model[EP_MODEL_MAX + 1];
	char key_env[EP_KEY_ENV_MAX + 1];
	char type[16];          /* the endpoint's type; "" for a URL taken as is (no plan of its APIs) */
	char url[EP_URL_MAX + 1];       /* the endpoint's URL as recorded */
	char speaks[64];                /* what it speaks, as the endpoints file says it */
	char cli_url[EP_URL_MAX + 16];  /* the URL the CLI is given on its own path (the broker's upstream) */
	char key_var[EP_KEY_ENV_MAX + 1];  /* the person's variable the key is read from; "" none */
	const char *key_form;   /* how the broker sends it: x-api-key | bearer | x-goog-api-key | "" */
	const char *broker_api; /* the broker's API: anthropic | openai | gemini | "" */
	bool key_in_sandbox;
	/* "broker": a run token; "key": the CLI's own key or login, found by the runner;
	 * "placeholder": a value that is no secret (placeholder) for a server that takes none;
	 * "none": nothing of the person's */
	const char *token;
	char placeholder[16];
	const char *token_vars[PLAN_VARS];  /* the variables the CLI reads it from */
	char env[PLAN_VARS][PLAN_ENV_MAX];  /* "NAME=VALUE" the CLI also gets; "" ends */
	char cli_args[2][PLAN_ARG_MAX];     /* words after the CLI's name in a run; "" ends */
	char reason[512];
	char fix[768];          /* a command line, every value shell-quoted; "" when none */
};

/* What an endpoint recorded with only a type is taken to speak. */
unsigned default_speaks(const char *type);

/* What the plan takes besides the CLI and the endpoint. */
struct plan_in {
	bool keys_in;     /* the person asked for the key in the sandbox */
	bool translator;  /* ping's and up's --keep-keys-out: Messages in, through the translator */
	/* is the person's variable exported with a value?  NULL: take every one as set
	 * (status and quickstart, which plan for any shell) */
	bool (*is_set)(const char *name);
};

/* The plan of cli against ep.  An endpoint recorded without a type or APIs
 * (an older NAME URL line, or the runner's --managed URL) is taken as is:
 * its API follows the CLI and the key the person exported.  Always fills p;
 * returns 0, or -1 when the route is refused. */
int plan_make_in(const char *cli, const struct endpoint *ep, const struct plan_in *in, struct plan *p);

/* plan_make_in with keys_in alone. */
int plan_make(const char *cli, const struct endpoint *ep, bool keys_in, struct plan *p);

const char *route_word(enum route r);

#endif
