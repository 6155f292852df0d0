/* What the command is started with: its argv (with any arguments the init
 * inserts after argv[0]) and the variables the init adds to the environment
 * (identity, the model gateway, quiet CLIs). */
#ifndef CLI_SANDBOX_EXEC_PLAN_H
#define CLI_SANDBOX_EXEC_PLAN_H

#include <limits.h>
#include <stddef.h>

#include "caps/user_db.h"
#include "entrypoint/config.h"

#define EXEC_MAX_ADDED 24
#define EXEC_MAX_INSERTED 12
/* Where the image installs pi's base-URL extension (image/pi-base-url.js). */
#define PI_EXTENSION_PATH "/usr/local/share/cli-sandbox/pi-base-url.js"

struct env_var {
	const char *name;   /* static string */
	char value[PATH_MAX];  /* a home directory or a URL */
};

struct exec_plan {
	char **argv;                 /* owned array; strings borrowed or in inserted[] */
	const char *cli;             /* "claude", "codex", "pi", or NULL */
	struct env_var added[EXEC_MAX_ADDED];
	size_t n_added;
	char inserted[EXEC_MAX_INSERTED][MODEL_URL_MAX + 32];
	size_t n_inserted;
};

/* argv empty: the command defaults to claude.  pi_extension is the path
 * checked for pi's extension (PI_EXTENSION_PATH outside tests). */
int exec_plan_build(const struct cs_config *cfg, const struct cs_user *user,
		    char *const envp[], char *const argv[], const char *pi_extension,
		    struct exec_plan *plan, struct cs_error *err);
void exec_plan_free(struct exec_plan *plan);

/* The command's environment: envp with the added variables set (replacing
 * same-named entries).  Returns a malloc'd NULL-terminated array whose
 * strings are malloc'd too, or NULL when memory runs out. */
char **exec_plan_environ(const struct exec_plan *plan, char *const envp[]);
void exec_environ_free(char **env);

#endif
