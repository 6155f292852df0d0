/* The supervisor: what the init does as PID 1.  It runs the command as its
 * child and stays a minimal init around it, with no privilege left. */
#ifndef CLI_SANDBOX_SUPERVISOR_H
#define CLI_SANDBOX_SUPERVISOR_H

#include <stdbool.h>
#include <sys/types.h>

#include "base/status.h"
#include "caps/user_db.h"

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

/* PID 1 forks the command's process right after the firewall, before any
 * privilege is dropped, so that each side can drop to an identity of its
 * own: the command's process to the user (main's usual path), PID 1 to the
 * user's uid with a gid of its own and no groups, so that the command
 * cannot change PID 1's resource limits.  Returns the child's pid in PID 1;
 * in the child it returns 0 only once PID 1 has dropped (supervisor_run),
 * and exits 71 without a word if PID 1 could not.  -1 with err (71) when
 * the fork fails. */
pid_t supervisor_fork(struct cs_error *err);

/* PID 1's side: drops its privileges (caps/drop.h) to its own identity,
 * installs the seccomp filter, releases the child, then forwards signals
 * to the child's process group, reaps every zombie and, once the child has
 * exited, sends SIGTERM to what is left, SIGKILL after a 2 s grace.
 * Returns the container's status: the child's code or 128+N; 71 with one
 * line on stderr when PID 1 cannot drop (the child then exits before it
 * does anything).  See docs/privileges.md. */
int supervisor_run(pid_t child, const struct cs_user *user, bool allow_userns);

/* The child's last step, after its own drop and filter: restores the
 * signal mask and dispositions the init was started with, then
 * command_exec().  Returns only when the exec failed (126 or 127). */
int supervisor_child_exec(char *const argv[], char *const envp[], struct cs_error *err);

#endif
