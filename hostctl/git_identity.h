/* git's user.name and user.email for the sandbox's commits: the
 * workspace's own settings over the global and system ones, in one git
 * (each key's last line wins, as 'git config KEY' reads it; a repository
 * owned by someone else gives the others alone); when git fails otherwise
 * (not 1, none set), the global ones.  The runner passes them as
 * GIT_AUTHOR_* and GIT_COMMITTER_*, so that no config file is written. */
#ifndef CLI_SANDBOX_HOSTCTL_GIT_IDENTITY_H
#define CLI_SANDBOX_HOSTCTL_GIT_IDENTITY_H

#include <stddef.h>

/* From git's --get-regexp output (KEY VALUE lines): the last user.name and
 * user.email, "" when none, or when the value holds a control byte (a line
 * break included: the runner's lines are one a value).  Pure. */
void git_identity_parse(const char *text, char *name, char *email, size_t len);

/* Runs git (when on PATH) for the workspace ws and prints git_name= and
 * git_email= lines for what is set. */
void git_identity_lines(const char *ws);

#endif
