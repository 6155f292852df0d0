#include "base/cli_names.h"

#include <string.h>

/* The order is the init's table's order (test_clis.c compares them). */
const struct cs_cli_name cs_cli_names[] = {
	{ "claude", { CS_API_MESSAGES, 0 }, ".claude", "CLAUDE_CONFIG_DIR", ".", ".credentials.json",
	  "ANTHROPIC_API_KEY ANTHROPIC_AUTH_TOKEN",
	  "j settings.json;j settings.local.json;f CLAUDE.md;d commands;d agents;d hooks;d skills;d plugins" },
	{ "codex", { CS_API_RESPONSES, 0 }, ".codex", "CODEX_HOME", ".", "auth.json", "OPENAI_API_KEY CODEX_API_KEY",
	  /* codex records a project's trust in config.toml and cannot go on without that
	   * write: the sandbox's own copy (hostctl/protect.c, protect_own_copy) */
	  "o config.toml" },
	/* pi: its providers' variables (pi-ai's env-api-keys.js getApiKeyEnvVars); GitHub's
	 * GH_TOKEN and GITHUB_TOKEN, cloud credentials (AWS_*, GOOGLE_APPLICATION_CREDENTIALS)
	 * and HF_TOKEN are left out on purpose: they open much more than a model. */
	{ "pi", { CS_API_MESSAGES, 0 }, ".pi", "PI_CODING_AGENT_DIR", "agent", "agent/auth.json",
	  "ANTHROPIC_API_KEY ANTHROPIC_OAUTH_TOKEN OPENAI_API_KEY AZURE_OPENAI_API_KEY GEMINI_API_KEY "
	  "GOOGLE_CLOUD_API_KEY DEEPSEEK_API_KEY GROQ_API_KEY CEREBRAS_API_KEY XAI_API_KEY OPENROUTER_API_KEY "
	  "AI_GATEWAY_API_KEY ZAI_API_KEY MISTRAL_API_KEY MINIMAX_API_KEY MINIMAX_CN_API_KEY MOONSHOT_API_KEY "
	  "FIREWORKS_API_KEY OPENCODE_API_KEY KIMI_API_KEY CLOUDFLARE_API_KEY XIAOMI_API_KEY COPILOT_GITHUB_TOKEN",
	  "j agent/settings.json;d agent/extensions" },
	{ "gemini", { CS_API_GEMINI, 0 }, ".gemini", "", "", "oauth_creds.json", "GEMINI_API_KEY GOOGLE_API_KEY",
	  "j settings.json;d extensions;d commands" },
	/* opencode's AI SDK providers: @ai-sdk/anthropic, @ai-sdk/openai-compatible (Chat
	 * Completions) and @ai-sdk/openai (Responses), all built in */
	{ "opencode", { CS_API_MESSAGES, CS_API_CHAT, CS_API_RESPONSES }, ".local/share/opencode", "", "", "auth.json",
	  "ANTHROPIC_API_KEY OPENAI_API_KEY OPENCODE_API_KEY GEMINI_API_KEY OPENROUTER_API_KEY",
	  /* its config is ~/.config/opencode, which is never mounted: nothing of its state
	   * folder (~/.local/share/opencode) is loaded as code */
	  "" },
	{ NULL, { 0 }, NULL, NULL, NULL, NULL, NULL, NULL },
};

const struct cs_cli_name *cs_cli_by_name(const char *name)
{
	for (const struct cs_cli_name *c = cs_cli_names; c->name; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}
