/* The credentials stage, between the validated configuration and the
 * command's plan: reads the credentials file (base/credentials.h) as root,
 * before the drop, and gives its variables to the command's environment.
 *
 * It never feeds the configuration: config_load() has already read the
 * init's own variables from the real environment, and the command's plan
 * (and its first run) sees the file's variables exactly as if the operator
 * had passed them with -e.  An operator's own variable of the same name wins. */
#ifndef CLI_SANDBOX_ENTRYPOINT_CREDENTIALS_STAGE_H
#define CLI_SANDBOX_ENTRYPOINT_CREDENTIALS_STAGE_H

#include "base/credentials.h"
#include "base/status.h"

/* Reads path (absent: no credentials, 0): opened with O_NOFOLLOW, it must be
 * a regular file of at most CS_CREDENTIALS_MAX_BYTES.  On success creds
 * holds the entries the environment does not already name (the others are
 * dropped), and *merged is a malloc'd NULL-terminated array: envp's strings
 * followed by creds' (borrowed, not copied; free only the array).  -1 with
 * err: 78 for a file that cannot be used, 71 when memory runs out. */
int credentials_stage(const char *path, char *const envp[], struct cs_credentials *creds, char ***merged,
		      struct cs_error *err);

#endif
