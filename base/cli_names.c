#include "base/cli_names.h"

#include <string.h>

/* The order is the init's table's order (test_clis.c compares them). */
const struct cs_cli_name cs_cli_names[] = {
	{ "claude", { CS_API_MESSAGES, 0 } },
	{ "codex", { CS_API_RESPONSES, 0 } },
	{ "pi", { CS_API_MESSAGES, 0 } },
	{ "gemini", { CS_API_GEMINI, 0 } },
	/* opencode's AI SDK providers: @ai-sdk/anthropic, @ai-sdk/openai-compatible (Chat
	 * Completions) and @ai-sdk/openai (Responses), all built in */
	{ "opencode", { CS_API_MESSAGES, CS_API_CHAT, CS_API_RESPONSES } },
	{ NULL, { 0 } },
};

const struct cs_cli_name *cs_cli_by_name(const char *name)
{
	for (const struct cs_cli_name *c = cs_cli_names; c->name; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}
