/* The translator's (claude-code-router's) configuration, in JSON built by
 * jansson (docs/gateway.md).  No secret is in it: the run's token and the
 * endpoint's key are named as $VARIABLES, which the router substitutes from
 * its environment. */
#ifndef CLI_SANDBOX_HOSTCTL_GATEWAY_CONFIG_H
#define CLI_SANDBOX_HOSTCTL_GATEWAY_CONFIG_H

#include <stdbool.h>

#define GATEWAY_PORT 3456

/* The config for upstream_api (anthropic: Messages, else Chat Completions)
 * at url (the upstream as the router reaches it), one model, keyed (the
 * endpoint has a key: $CLI_SANDBOX_UPSTREAM_KEY, else "none").  A string to
 * free(), or NULL. */
char *gateway_config_json(const char *upstream_api, const char *url, const char *model, bool keyed);

#endif
