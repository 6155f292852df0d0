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

/* What the host side knows of each CLI besides its APIs (the runner reads
 * them from cli-sandbox-ctl runner, docs/hostctl.md): */
struct cs_cli_name {
	const char *name;
	unsigned apis[CS_CLI_APIS];  /* the APIs it speaks itself, preferred first; 0 ends */
	/* its state folder under the home, on the host and under /home/node */
	const char *state_dir;
	/* the variable that points the CLI at that folder, set when the sandbox
	 * user's home is not /home/node ("" none), and the folder's part it names
	 * ("." the folder itself); where the init has a state_var, the same one
	 * (tests/unit/test_clis.c) */
	const char *state_var;
	const char *state_sub;
	const char *logins;  /* files in the folder that hold a login, comma-separated */
	/* the credential variables it reads, blank-separated, passed when set; the
	 * first is the one an endpoint's key-env feeds */
	const char *keys;
	/* what it executes or loads as code in its state folder (relative to it),
	 * which a run mounts read-only over the read-write folder (hostctl/protect.c;
	 * docs/host-script.md, "What the sandbox protects on the host"): "KIND REL"
	 * items separated by ';', KIND f a file, d a folder, j a JSON file (its
	 * placeholder is {}), o the sandbox's own copy of a file the CLI must write;
	 * "" none */
	const char *protect;
};

/* NULL-name-terminated. */
extern const struct cs_cli_name cs_cli_names[];

/* The row of a CLI by name, or NULL. */
const struct cs_cli_name *cs_cli_by_name(const char *name);

#endif
