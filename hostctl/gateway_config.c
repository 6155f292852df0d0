#include "hostctl/gateway_config.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The API's base as its clients are given it (the runner's ep_base): Messages
 * without a trailing /v1 (the path adds /v1/messages), Chat Completions with it. */
static void api_url(const char *upstream_api, const char *url, char *out, size_t len)
{
	size_t n = strlen(url);
	bool anthropic = strcmp(upstream_api, "anthropic") == 0;

	if (n && url[n - 1] == '/')
		n--;
	if (anthropic && n >= 3 && strncmp(url + n - 3, "/v1", 3) == 0)
		n -= 3;
	if (anthropic)
		snprintf(out, len, "%.*s/v1/messages", (int)n, url);
	else if (n >= 3 && strncmp(url + n - 3, "/v1", 3) == 0)
		snprintf(out, len, "%.*s/chat/completions", (int)n, url);
	else
		snprintf(out, len, "%.*s/v1/chat/completions", (int)n, url);
}

char *gateway_config_json(const char *upstream_api, const char *url, const char *model, bool keyed)
{
	char api[4200], route[600];
	json_t *provider, *root;
	char *text;

	api_url(upstream_api, url, api, sizeof(api));
	snprintf(route, sizeof(route), "upstream,%s", model);
	provider = json_pack("{s:s, s:s, s:s, s:[s]}", "name", "upstream", "api_base_url", api, "api_key",
			     keyed ? "$CLI_SANDBOX_UPSTREAM_KEY" : "none", "models", model);
	if (provider && strcmp(upstream_api, "anthropic") == 0)
		json_object_set_new(provider, "transformer", json_pack("{s:[s]}", "use", "Anthropic"));
	root = json_pack("{s:s, s:i, s:s, s:b, s:i, s:[o], s:{s:s}}", "HOST", "0.0.0.0", "PORT", GATEWAY_PORT, "APIKEY",
			 "$CLI_SANDBOX_GATEWAY_TOKEN", "LOG", 0, "API_TIMEOUT_MS", 600000, "Providers", provider, "Router",
			 "default", route);
	if (!root)
		return NULL;
	text = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(root);
	return text;
}
