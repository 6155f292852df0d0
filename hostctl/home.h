/* Where the host side keeps its files: CLI_SANDBOX_HOME, else
 * $HOME/.config/cli-sandbox (the runner's $conf), holding
 *   config     the commented configuration `init` writes (names the next)
 *   endpoints  the endpoints file (endpoint_file.h)
 *   current    the selected endpoint's name */
#ifndef CLI_SANDBOX_HOSTCTL_HOME_H
#define CLI_SANDBOX_HOSTCTL_HOME_H

#include <stdbool.h>
#include <stddef.h>

#include "base/status.h"

int home_dir(char *out, size_t len, struct cs_error *err);
/* home_dir() + "/" + file. */
int home_file(const char *file, char *out, size_t len, struct cs_error *err);
/* The selected endpoint's name into out ("" when none or not a valid name). */
void home_current(char *out, size_t len);
/* The selection file's first line as it is, not held to the name's rule ("" none). */
void home_current_line(char *out, size_t len);

#endif
