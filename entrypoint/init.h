/* Starting the command: exec'd directly, or supervised by a minimal PID 1. */
#ifndef CLI_SANDBOX_INIT_H
#define CLI_SANDBOX_INIT_H

#include "entrypoint/status.h"

/* Called first thing when the process is PID 1: blocks the signals the init
 * forwards, so none is lost between start-up and supervision. */
void init_prepare_signals(void);

/* Runs argv as a child (which takes the terminal), forwards signals, reaps
 * every zombie, and returns the exit status for the container. */
int init_supervise(char *const argv[], char *const envp[]);

/* execvpe(); returns only on failure, with err->status 126 or 127. */
int exec_command(char *const argv[], char *const envp[], struct cs_error *err);

#endif
