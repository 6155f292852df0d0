/* The endpoints file of host/lib/endpoints.sh, read and written in C so
 * that existing files keep working: one endpoint a line,
 *     NAME URL [type=T] [speaks=A,B] [model=M] [key-env=VAR]
 * words separated by blanks; blank lines and '#' comments are skipped.  A
 * line of only NAME URL (the older format) means type and APIs unknown.
 * A KEY=VALUE word of a key this program does not know (a later version's)
 * is kept as it is, when its key is [a-z][a-z0-9_-]* and its value only
 * the characters a shell reads as themselves (shquote.h's bare set).
 * Every word is held to validate.h's rules; the first bad line stops the
 * whole file with one line naming the file and the line (never a value:
 * a bad URL may hold a password). */
#ifndef CLI_SANDBOX_HOSTCTL_ENDPOINT_FILE_H
#define CLI_SANDBOX_HOSTCTL_ENDPOINT_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/status.h"
#include "hostctl/validate.h"

#define EP_MAX 256
#define EP_EXTRA_MAX 255

struct endpoint {
	char name[EP_NAME_MAX + 1];
	char url[EP_URL_MAX + 1];
	char type[16];                /* "" when unknown */
	char model[EP_MODEL_MAX + 1]; /* "" when none */
	char key_env[EP_KEY_ENV_MAX + 1];
	unsigned speaks;              /* enum cs_api bits */
	bool has_speaks;              /* false: never probed nor given */
	char extra[EP_EXTRA_MAX + 1]; /* unknown KEY=VALUE words, blank-separated, kept as read */
};

struct endpoints {
	size_t n;
	struct endpoint e[EP_MAX];
};

/* Parses the file's text (n bytes, NULs refused) into out; path only
 * names the file in errors.  On an error out->n is 0. */
int endpoints_parse(const char *text, size_t n, const char *path, struct endpoints *out, struct cs_error *err);

/* Reads path (a missing file is an empty list; anything but a regular file,
 * or a file over 1 MiB, is an error). */
int endpoints_load(const char *path, struct endpoints *out, struct cs_error *err);

/* One endpoint's line, without its newline; false when it does not fit. */
bool endpoint_format(const struct endpoint *e, char *out, size_t len);

/* Writes every endpoint to path atomically (a temporary file beside it,
 * mode 0600, then rename), creating the folder (0700) when missing. */
int endpoints_save(const char *path, const struct endpoints *eps, struct cs_error *err);

/* Writes text to path through a temporary file beside it (mode 0600) and
 * rename, creating the missing folders (0700). */
int write_file_atomic(const char *path, const char *text, size_t n, struct cs_error *err);

/* Removes name's lines from path as text, every other line kept as it is:
 * for a file that does not read (rm mends it).  *found tells whether there
 * was one. */
int endpoints_remove_raw(const char *path, const char *name, bool *found, struct cs_error *err);

/* The endpoint named name, or NULL. */
struct endpoint *endpoints_find(struct endpoints *eps, const char *name);
/* Removes name; false when there was none. */
bool endpoints_remove(struct endpoints *eps, const char *name);
/* Adds e last, replacing an endpoint of the same name (which moves last,
 * as the runner's add always did). */
int endpoints_put(struct endpoints *eps, const struct endpoint *e, struct cs_error *err);

#endif
