/* The one list of CLIs, below every layer that needs it: the init's table
 * (entrypoint/clis/table.c, held to this list by tests/unit/test_clis.c)
 * and the host program (hostctl/) read the names from here, and the host
 * program reads which model APIs each CLI speaks, in its order of
 * preference.  It lives in base/ because the host program must not link the
 * init's entrypoint layer (caps, netfilter and the rest) for a list of names. */
#ifndef CLI_SANDBOX_BASE_CLI_NAMES_H
#define CLI_SANDBOX_BASE_CLI_NAMES_H

#include <stddef.h>

/* A model API, as a bit so an endpoint's set of APIs is one mask. */
enum cs_api {
	CS_API_MESSAGES = 1 << 0,   /* Anthropic Messages, POST /v1/messages */
	CS_API_CHAT = 1 << 1,       /* OpenAI Chat Completions */
	CS_API_RESPONSES = 1 << 2,  /* OpenAI Responses */
	CS_API_OLLAMA = 1 << 3,     /* Ollama's native API, /api/... */
	CS_API_GEMINI = 1 << 4,     /* the Gemini API (generativelanguage) */
};

#define CS_CLI_APIS 3

struct cs_cli_name {
	const char *name;
	unsigned apis[CS_CLI_APIS];  /* the APIs it speaks itself, preferred first; 0 ends */
};

/* NULL-name-terminated. */
extern const struct cs_cli_name cs_cli_names[];

/* The row of a CLI by name, or NULL. */
const struct cs_cli_name *cs_cli_by_name(const char *name);

#endif
