/* A CLI's JSON state files, read and written the way its first-run help
 * needs (entrypoint/first_run.h): never through a symlink, never half
 * written, never replacing what is not a JSON object. */
#ifndef CLI_SANDBOX_CLIS_STATE_FILE_H
#define CLI_SANDBOX_CLIS_STATE_FILE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The folder path as a descriptor, or -1 with why in what. */
int state_dir_open(const char *path, char *what, size_t len);

/* Reads dir/name as a JSON object: a new empty one (mode 0600) when the
 * file does not exist.  A symlink, anything but a regular file, or a file
 * that is not a JSON object is left alone (-1, why in what). */
int state_file_read(int dirfd, const char *path, const char *name, json_t **root,
		    mode_t *mode, char *what, size_t len);

/* Writes root to dir/name through a temporary file in the same folder, so
 * the CLI never reads half a file: renamed over the old one, or, with
 * create_only, linked into place only while no file has that name. */
int state_file_write(int dirfd, const char *path, const char *name, json_t *root, mode_t mode,
		     bool create_only, char *what, size_t len);

/* The key the CLI uses: the first of a and b (b may be NULL) that is set,
 * not empty and of a sane length; NULL when none is. */
const char *state_key_of(char *const env[], const char *a, const char *b);

#endif
