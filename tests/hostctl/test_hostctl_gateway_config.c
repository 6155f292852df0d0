/* The translator's configuration (hostctl/gateway_config.h), built by jansson:
 * byte for byte what host/lib/gateway.sh's printf wrote for each upstream API
 * and URL form, a model with JSON's special characters escaped (the sh had
 * json_str for that), and no secret: only $VARIABLES. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hostctl/gateway_config.h"

static int same(char *got, const char *want)
{
	int ok = got && strcmp(got, want) == 0;
	free(got);
	return ok;
}

int main(void)
{
	CHECK(same(gateway_config_json("chat", "http://192.0.2.1:4000/v1", "m1", true),
		   "{\"HOST\":\"0.0.0.0\",\"PORT\":3456,\"APIKEY\":\"$CLI_SANDBOX_GATEWAY_TOKEN\",\"LOG\":false,\"API_TIMEOUT_MS\":600000,"
		   "\"Providers\":[{\"name\":\"upstream\",\"api_base_url\":\"http://192.0.2.1:4000/v1/chat/completions\","
		   "\"api_key\":\"$CLI_SANDBOX_UPSTREAM_KEY\",\"models\":[\"m1\"]}],\"Router\":{\"default\":\"upstream,m1\"}}"),
	      "chat, keyed: Chat Completions at URL/chat/completions, the key by name");
	CHECK(same(gateway_config_json("chat", "http://192.0.2.1:11434/", "qwen3:8b", false),
		   "{\"HOST\":\"0.0.0.0\",\"PORT\":3456,\"APIKEY\":\"$CLI_SANDBOX_GATEWAY_TOKEN\",\"LOG\":false,\"API_TIMEOUT_MS\":600000,"
		   "\"Providers\":[{\"name\":\"upstream\",\"api_base_url\":\"http://192.0.2.1:11434/v1/chat/completions\","
		   "\"api_key\":\"none\",\"models\":[\"qwen3:8b\"]}],\"Router\":{\"default\":\"upstream,qwen3:8b\"}}"),
	      "chat, keyless, no /v1: /v1 added, api_key none");
	CHECK(same(gateway_config_json("anthropic", "https://h.example/v1/", "m", true),
		   "{\"HOST\":\"0.0.0.0\",\"PORT\":3456,\"APIKEY\":\"$CLI_SANDBOX_GATEWAY_TOKEN\",\"LOG\":false,\"API_TIMEOUT_MS\":600000,"
		   "\"Providers\":[{\"name\":\"upstream\",\"api_base_url\":\"https://h.example/v1/messages\","
		   "\"api_key\":\"$CLI_SANDBOX_UPSTREAM_KEY\",\"models\":[\"m\"],\"transformer\":{\"use\":[\"Anthropic\"]}}],"
		   "\"Router\":{\"default\":\"upstream,m\"}}"),
	      "anthropic: Messages at BASE/v1/messages (one /v1), the Anthropic transformer");
	CHECK(same(gateway_config_json("chat", "http://h/v1", "a\"b\\c", false),
		   "{\"HOST\":\"0.0.0.0\",\"PORT\":3456,\"APIKEY\":\"$CLI_SANDBOX_GATEWAY_TOKEN\",\"LOG\":false,\"API_TIMEOUT_MS\":600000,"
		   "\"Providers\":[{\"name\":\"upstream\",\"api_base_url\":\"http://h/v1/chat/completions\","
		   "\"api_key\":\"none\",\"models\":[\"a\\\"b\\\\c\"]}],\"Router\":{\"default\":\"upstream,a\\\"b\\\\c\"}}"),
	      "a quote and a backslash in the model are escaped");
	return check_done("test_hostctl_gateway_config");
}
