/* What the operator chose for a CLI: its options in argv and its keys in
 * config files.  The CLI rules (entrypoint/clis/) read these so that the
 * operator's own choice always wins over what the init would set. */
#ifndef CLI_SANDBOX_CLIS_OPERATOR_H
#define CLI_SANDBOX_CLIS_OPERATOR_H

#include <stdbool.h>
#include <stddef.h>

#include "entrypoint/plan.h"

/* An option given by the operator before any "--": "--name", "--name=…",
 * and for a one-letter "-x" also "-xVALUE". */
bool cli_has_option(char *const argv[], const char *name);

/* True when the file at path is a regular file (no symlink followed at the
 * last step) whose text holds key as a TOML key at the start of a line
 * (toml) or as a JSON member name "key" (json).  Missing or unreadable: false. */
bool cli_config_has_key(const char *path, const char *key, bool toml);

/* The value of an option with an argument: "-x V", "-xV", "--long V",
 * "--long=V" before any "--"; NULL when not given ("" when it ends argv).
 * shortopt may be NULL. */
const char *cli_option_value(char *const argv[], const char *shortopt, const char *longopt);

/* A TOML or command-line value as plain text: leading blanks and one quote
 * skipped, up to the next quote, blank or comment; at most len - 1 bytes. */
void cli_plain_value(const char *v, char *out, size_t len);

/* Calls fn with the plain value of every "key = …" line of the TOML file
 * at path (any table) until fn returns true; returns what fn last returned
 * (false for a missing or unreadable file). */
bool cli_config_values(const char *path, const char *key, bool (*fn)(const char *value, void *arg), void *arg);

/* Where the command's own config lives: DIR from the variable the command
 * sees, else HOME/DFLT, then FILE. */
void cli_config_path(char *out, size_t len, const struct command *plan, char *const envp[],
		     const char *var, const char *home, const char *dflt, const char *file);

#endif
