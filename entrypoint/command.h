/* The command: its argv (with any arguments the init inserts after argv[0]),
 * the variables the init adds to the environment (identity, the model
 * gateway, quiet CLIs), and its exec.  What each CLI gets is its row of the
 * CLI table (entrypoint/clis/cli.h); the plan's parts are in plan.h. */
#ifndef CLI_SANDBOX_COMMAND_H
#define CLI_SANDBOX_COMMAND_H

#include "base/config.h"
#include "caps/user_db.h"
#include "entrypoint/clis/cli.h"
#include "entrypoint/plan.h"
#include "entrypoint/userns_probe.h"

/* argv NULL or empty: the command is CS_DEFAULT_COMMAND.  pi_extension is
 * the path checked for pi's extension (PI_EXTENSION_PATH outside tests). */
int command_build(const struct cs_config *cfg, const struct cs_user *user,
		  char *const envp[], char *const argv[], const char *pi_extension,
		  struct command *cmd, struct cs_error *err);
void command_free(struct command *cmd);

/* True when the plan's nested sandbox waits for the user-namespace probe. */
bool command_wants_probe(const struct command *cmd);
/* After the drop, just before the command starts: applies the probe's
 * result to the CLI's nested sandbox (the placeholder, or the operator's
 * own choice that needs user namespaces) and records the decision in
 * cmd->sandbox.  -1 with err (78) when the operator's choice cannot work. */
int command_decide_sandbox(struct command *cmd, const struct userns_probe *probe, struct cs_error *err);

/* The command's environment: envp with the added variables set (replacing
 * same-named entries).  Returns a malloc'd NULL-terminated array whose
 * strings are malloc'd too, or NULL when memory runs out. */
char **command_environ(const struct command *cmd, char *const envp[]);
void command_environ_free(char **env);

/* execvpe(); returns only on failure, with err->status 126 or 127. */
int command_exec(char *const argv[], char *const envp[], struct cs_error *err);

#endif
