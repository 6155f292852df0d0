#include "entrypoint/plan.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int command_add_var(struct command *cmd, const char *name, const char *value,
		   struct cs_error *err)
{
	struct env_var *v;

	size_t len = strlen(value);

	if (cmd->n_added == EXEC_MAX_ADDED)
		return cs_fail(err, CS_EXIT_CONFIG, "too many environment variables to add");
	if (len >= sizeof(v->value))  /* never pass on a silently truncated value */
		return cs_fail(err, CS_EXIT_CONFIG, "the value for %s is too long; shorten it", name);
	v = &cmd->added[cmd->n_added++];
	v->name = name;
	memcpy(v->value, value, len + 1);
	v->copy_of = NULL;
	return 0;
}

int command_copy_var(struct command *cmd, const char *name, const char *from, struct cs_error *err)
{
	if (command_add_var(cmd, name, "", err))
		return -1;
	cmd->added[cmd->n_added - 1].copy_of = from;
	return 0;
}

int command_insert_arg(struct command *cmd, const char *a, const char *b, struct cs_error *err)
{
	if (cmd->n_inserted == EXEC_MAX_INSERTED)
		return cs_fail(err, CS_EXIT_CONFIG, "too many arguments to insert");
	if (strlen(a) + strlen(b ? b : "") >= sizeof(cmd->inserted[0]))
		return cs_fail(err, CS_EXIT_CONFIG, "an argument for the CLI would be too long; shorten the URL");
	snprintf(cmd->inserted[cmd->n_inserted++], sizeof(cmd->inserted[0]), "%s%s", a, b ? b : "");
	return 0;
}

const char *command_env_value(const struct command *cmd, char *const envp[], const char *name)
{
	for (size_t i = 0; i < cmd->n_added; i++)
		if (strcmp(cmd->added[i].name, name) == 0)
			return cmd->added[i].copy_of ? env_lookup(envp, cmd->added[i].copy_of) : cmd->added[i].value;
	return env_lookup(envp, name);
}

void command_note(struct command *cmd, const char *fmt, ...)
{
	size_t used = strlen(cmd->autonomy);
	va_list ap;

	if (used && used + 2 < sizeof(cmd->autonomy)) {
		memcpy(cmd->autonomy + used, "; ", 3);
		used += 2;
	}
	va_start(ap, fmt);
	vsnprintf(cmd->autonomy + used, sizeof(cmd->autonomy) - used, fmt, ap);
	va_end(ap);
}
