/* Ollama models known to call tools well (a structured tool call, which the
 * tool-driven CLIs need): what `models catalog` shows. */
#ifndef CLI_SANDBOX_HOSTCTL_MODELS_CATALOG_H
#define CLI_SANDBOX_HOSTCTL_MODELS_CATALOG_H

struct catalog_model {
	const char *name, *ram, *disk, *note;
};

/* Ends with a NULL name. */
extern const struct catalog_model models_catalog[];

#endif
