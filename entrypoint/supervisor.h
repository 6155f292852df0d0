/* Starting the command: exec'd directly, or supervised by a minimal PID 1. */
#ifndef CLI_SANDBOX_INIT_H
#define CLI_SANDBOX_INIT_H

#include "entrypoint/status.h"

/* Called first thing when the process is PID 1: blocks the signals the init
 * forwards (HUP INT QUIT TERM USR1 USR2 WINCH CONT TSTP) and SIGCHLD, so
 * none is lost between start-up and supervision. */
void init_prepare_signals(void);

/* Runs argv as a child (in its own process group, which takes the
 * terminal), forwards signals to that group, reaps every zombie; when the
 * child exits, sends SIGTERM to what is left, SIGKILL after a 2 s grace, and
 * returns the exit status for the container: the child's code, or 128+N.
 * Call it only after the privilege drop: the supervisor keeps no privilege.
 * See docs/privileges.md. */
int init_supervise(char *const argv[], char *const envp[]);

/* execvpe(); returns only on failure, with err->status 126 or 127. */
int exec_command(char *const argv[], char *const envp[], struct cs_error *err);

#endif
