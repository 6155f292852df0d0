/* The credentials file on disk (memory, really): a private directory of a
 * name no other user can guess, and in it "env", one NAME=VALUE line a
 * variable (base/credentials.h's format), written from values the caller
 * read from its own environment (its directory: private_dir.h).  What the
 * runner's printf did, with every open exclusive and no link followed. */
#ifndef CLI_SANDBOX_HOSTCTL_CREDENTIALS_FILE_H
#define CLI_SANDBOX_HOSTCTL_CREDENTIALS_FILE_H

#include <stddef.h>
#include <sys/types.h>

/* Writes DIR/env (created, never followed or overwritten) with mode: one
 * line "names[i]=values[i]" each.  A value with a line break, or a NUL-free
 * buffer the format cannot hold, is refused (-1, errno EINVAL) before
 * anything is written; on any failure the file is removed.  0 or -1 (errno). */
int cred_write_file(const char *dir, const char *const names[], const char *const values[], size_t n, mode_t mode);

#endif
