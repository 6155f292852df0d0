/* The command: its argv (with any arguments the init inserts after argv[0]),
 * the variables the init adds to the environment (identity, the model
 * gateway, quiet CLIs), and its exec.  The CLI wiring table lives in
 * command.c. */
#ifndef CLI_SANDBOX_COMMAND_H
#define CLI_SANDBOX_COMMAND_H

#include <limits.h>
#include <stddef.h>

#include "base/config.h"
#include "caps/user_db.h"

#define EXEC_MAX_ADDED 24
#define EXEC_MAX_INSERTED 12
/* Where the image installs pi's base-URL extension (image/pi-base-url.js). */
#define PI_EXTENSION_PATH "/usr/local/share/cli-sandbox/pi-base-url.js"

struct env_var {
	const char *name;   /* static string */
	char value[PATH_MAX];  /* a home directory or a URL */
};

struct command {
	char **argv;                 /* owned array; strings borrowed or in inserted[] */
	const char *cli;             /* "claude", "codex", "pi", or NULL */
	struct env_var added[EXEC_MAX_ADDED];
	size_t n_added;
	char inserted[EXEC_MAX_INSERTED][MODEL_URL_MAX + 32];
	size_t n_inserted;
};

/* argv NULL or empty: the command is CS_DEFAULT_COMMAND.  pi_extension is
 * the path checked for pi's extension (PI_EXTENSION_PATH outside tests). */
int command_build(const struct cs_config *cfg, const struct cs_user *user,
		  char *const envp[], char *const argv[], const char *pi_extension,
		  struct command *cmd, struct cs_error *err);
void command_free(struct command *cmd);

/* The command's environment: envp with the added variables set (replacing
 * same-named entries).  Returns a malloc'd NULL-terminated array whose
 * strings are malloc'd too, or NULL when memory runs out. */
char **command_environ(const struct command *cmd, char *const envp[]);
void command_environ_free(char **env);

/* execvpe(); returns only on failure, with err->status 126 or 127. */
int command_exec(char *const argv[], char *const envp[], struct cs_error *err);

#endif
