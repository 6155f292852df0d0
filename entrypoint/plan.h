/* The command's plan, as the CLI rules (entrypoint/clis/) write it: the
 * arguments inserted after argv[0], the variables added to the environment,
 * what was decided for the CLI's approvals and nested sandbox, and which CLI
 * of the table it is.  The builder (command.h) fills it through these calls;
 * the report and the start read it. */
#ifndef CLI_SANDBOX_PLAN_H
#define CLI_SANDBOX_PLAN_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/config.h"
#include "base/model_url.h"
#include "base/status.h"

#define EXEC_MAX_ADDED 24
#define EXEC_MAX_INSERTED 24

struct cli;  /* a row of the CLI table (entrypoint/clis/cli.h) */

struct env_var {
	const char *name;   /* static string */
	char value[PATH_MAX];  /* a home directory or a URL */
	/* Or NULL: the name of the variable whose value it gets when the
	 * environment is made (a key: the plan never holds it, so no plan or
	 * dry-run can print it). */
	const char *copy_of;
};

struct command {
	char **argv;                 /* owned array; strings borrowed or in inserted[] */
	const struct cli *cli;       /* its row in the CLI table, or NULL for any other command */
	struct env_var added[EXEC_MAX_ADDED];
	size_t n_added;
	char inserted[EXEC_MAX_INSERTED][MODEL_URL_MAX + 32];
	size_t n_inserted;
	/* What was set or left for the CLI's approvals, and its nested sandbox
	 * (decided after the drop; inserted[] index of the placeholder value,
	 * or -1). */
	char autonomy[320];
	int sandbox_arg;
	bool sandbox_default_on_ok;  /* interactive: a working probe keeps the CLI's default */
	/* The operator chose a nested sandbox that needs user namespaces: the
	 * probe must pass or the start stops (78).  Which sandbox and who chose
	 * it, for the start line and the error. */
	bool sandbox_needs_userns;
	char sandbox_mode[64];
	char sandbox_choice[256];
	char sandbox[400];           /* the start line's sandbox decision */
};

/* Add a variable (the caller checked the operator has not set it), insert
 * an argument (a then b, concatenated) after argv[0]; -1 with err when the
 * plan is full or the text too long. */
int command_add_var(struct command *cmd, const char *name, const char *value, struct cs_error *err);
int command_insert_arg(struct command *cmd, const char *a, const char *b, struct cs_error *err);
/* Adds name with the value that from has in the command's environment (both
 * static strings); the caller checked that from is set and name is not. */
int command_copy_var(struct command *cmd, const char *name, const char *from, struct cs_error *err);
/* The value the command will see: the plan's addition, else envp's. */
const char *command_env_value(const struct command *cmd, char *const envp[], const char *name);
/* Appends one clause to cmd->autonomy ("; " between clauses). */
void command_note(struct command *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
