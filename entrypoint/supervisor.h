/* The supervisor: what the init does as PID 1 once privileges are gone.
 * It runs the command as its child and stays a minimal init around it. */
#ifndef CLI_SANDBOX_SUPERVISOR_H
#define CLI_SANDBOX_SUPERVISOR_H

#include "base/status.h"

/* Called first thing when the process is PID 1: blocks the signals the init
 * forwards (HUP INT QUIT TERM USR1 USR2 WINCH CONT TSTP) and SIGCHLD, so
 * none is lost between start-up and supervision. */
void supervisor_prepare_signals(void);

/* One more descriptor for the loop to watch (the block log, the only one):
 * whenever it is readable the loop calls on_ready(ctx), which must not
 * block; a non-zero return, or an error or hang-up on the descriptor,
 * stops the watching and nothing else.  The descriptor must be
 * close-on-exec: the command never gets it. */
void supervisor_watch(int fd, int (*on_ready)(void *ctx), void *ctx);

/* Runs argv as a child (in its own process group, which takes the
 * terminal), forwards signals to that group, reaps every zombie; when the
 * child exits, sends SIGTERM to what is left, SIGKILL after a 2 s grace, and
 * returns the exit status for the container: the child's code, or 128+N.
 * Call it only after the privilege drop: the supervisor keeps no privilege.
 * See docs/privileges.md. */
int supervisor_run(char *const argv[], char *const envp[]);

#endif
