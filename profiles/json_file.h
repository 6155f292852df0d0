/* Reading the profile's JSON data files with jansson, with one error style:
 * a missing file is reported to the caller (it decides whether that is a
 * warning), anything else wrong is a configuration error that names the file
 * and, for syntax errors, the line and column. */
#ifndef CLI_SANDBOX_JSON_FILE_H
#define CLI_SANDBOX_JSON_FILE_H

#include <jansson.h>
#include <stddef.h>

#include "base/status.h"

/* 0 with *out set (the caller json_decref()s it), 1 when path does not
 * exist, -1 with err (78) when it cannot be read, is not a regular file, is
 * larger than max_bytes or is not valid JSON.  Duplicate keys are refused. */
int json_file_load(const char *path, size_t max_bytes, json_t **out, struct cs_error *err);

/* The same checks, but the raw text: 0 with *text (malloc'd, NUL-terminated,
 * *len bytes before the NUL), 1 when path does not exist, -1 with err. */
int json_file_read(const char *path, size_t max_bytes, char **text, size_t *len, struct cs_error *err);

/* Parses an in-memory document; name is used in messages.  0 or -1 (78). */
int json_text_load(const char *text, size_t len, const char *name, json_t **out,
		   struct cs_error *err);

#endif
