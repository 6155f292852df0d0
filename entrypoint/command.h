/* The command: its argv (with any arguments the init inserts after argv[0]),
 * the variables the init adds to the environment (identity, the model
 * gateway, quiet CLIs), and its exec.  The CLI wiring table lives in
 * command.c. */
#ifndef CLI_SANDBOX_COMMAND_H
#define CLI_SANDBOX_COMMAND_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/config.h"
#include "caps/user_db.h"

#define EXEC_MAX_ADDED 24
#define EXEC_MAX_INSERTED 24
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
	/* cli_autonomy: what was set or left for the CLI's approvals, and
	 * codex's sandbox (decided after the drop; inserted[] index of the
	 * placeholder value, or -1). */
	char autonomy[320];
	int sandbox_arg;
	bool sandbox_default_on_ok;  /* interactive: a working probe keeps codex's default */
	char sandbox[320];
};

/* argv NULL or empty: the command is CS_DEFAULT_COMMAND.  pi_extension is
 * the path checked for pi's extension (PI_EXTENSION_PATH outside tests). */
int command_build(const struct cs_config *cfg, const struct cs_user *user,
		  char *const envp[], char *const argv[], const char *pi_extension,
		  struct command *cmd, struct cs_error *err);
void command_free(struct command *cmd);

/* For the wiring modules: add a variable (the caller checked the operator
 * has not set it), insert an argument (a then b, concatenated) after
 * argv[0]; -1 with err when the plan is full or the text too long. */
int command_add_var(struct command *cmd, const char *name, const char *value, struct cs_error *err);
int command_insert_arg(struct command *cmd, const char *a, const char *b, struct cs_error *err);
/* The value the command will see: the plan's addition, else envp's. */
const char *command_env_value(const struct command *cmd, char *const envp[], const char *name);

/* The command's environment: envp with the added variables set (replacing
 * same-named entries).  Returns a malloc'd NULL-terminated array whose
 * strings are malloc'd too, or NULL when memory runs out. */
char **command_environ(const struct command *cmd, char *const envp[]);
void command_environ_free(char **env);

/* execvpe(); returns only on failure, with err->status 126 or 127. */
int command_exec(char *const argv[], char *const envp[], struct cs_error *err);

#endif
