/* Engine commands as argv arrays for the sidecars of a run (the key broker,
 * the translator): ENGINE, then CLI_SANDBOX_ENGINE_GLOBAL_ARGS's words, then
 * the command's own.  No shell anywhere; a dry run prints the same array. */
#ifndef CLI_SANDBOX_HOSTCTL_ENGINE_CMD_H
#define CLI_SANDBOX_HOSTCTL_ENGINE_CMD_H

#include <stddef.h>

#define ENGINE_ARGV_MAX 192

struct engine_cmd {
	char *argv[ENGINE_ARGV_MAX];
	int n;
	char store[4096]; /* the global args' words */
};

/* argv = ENGINE and the global args' words. */
void engine_cmd_init(struct engine_cmd *c, const char *engine);
/* Appends words (NULL-terminated); silently stops at the array's end. */
void engine_cmd_add(struct engine_cmd *c, ...) __attribute__((sentinel));
/* Appends the words of text, split on blanks as sh splits an unquoted
 * variable (CLI_SANDBOX_ENGINE_ARGS); text must outlive the command. */
void engine_cmd_words(struct engine_cmd *c, char *text);
/* Runs it (120 s at most): 0, or its exit status with its output (stdout,
 * then stderr) in out. */
int engine_cmd_run(struct engine_cmd *c, char *out, size_t len);
/* The runner's print_cmd: ENGINE, then each word single-quoted on a line of its own. */
void engine_cmd_print(struct engine_cmd *c);
/* The last line of an engine's output (its error). */
const char *engine_last_line(const char *text);

#endif
