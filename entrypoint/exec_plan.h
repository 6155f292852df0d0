/* What the command is started with: its argv, and the variables the init adds
 * to the environment (identity, the model gateway, quiet CLIs). */
#ifndef CLI_SANDBOX_EXEC_PLAN_H
#define CLI_SANDBOX_EXEC_PLAN_H

#include <stddef.h>

#include "caps/user_db.h"
#include "entrypoint/config.h"

#define EXEC_MAX_ADDED 24

struct env_var {
	const char *name;   /* static string */
	char value[MODEL_URL_MAX];
};

struct exec_plan {
	char *const *argv;           /* borrowed; argv[0] is the command */
	const char *cli;             /* "claude", "codex", "pi", or NULL */
	struct env_var added[EXEC_MAX_ADDED];
	size_t n_added;
};

/* default_argv is used when argv is empty (COMMAND defaults to claude). */
int exec_plan_build(const struct cs_config *cfg, const struct cs_user *user,
		    char *const envp[], char *const argv[], struct exec_plan *plan,
		    struct cs_error *err);

/* The command's environment: envp with the added variables set (replacing
 * same-named entries).  Returns a malloc'd NULL-terminated array whose
 * strings are malloc'd too, or NULL when memory runs out. */
char **exec_plan_environ(const struct exec_plan *plan, char *const envp[]);
void exec_environ_free(char **env);

#endif
