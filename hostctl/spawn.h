/* Runs a program as an argv array (posix_spawnp: no shell, nothing
 * re-split) and keeps its standard output; its stderr goes nowhere.  For
 * the engine's questions (version, info, image inspect, the init's
 * --version), each bounded by a timeout. */
#ifndef CLI_SANDBOX_HOSTCTL_SPAWN_H
#define CLI_SANDBOX_HOSTCTL_SPAWN_H

#include <stdbool.h>
#include <stddef.h>

/* Returns the exit status (0..255), or -1 when it could not start, was
 * killed, or ran past timeout_ms.  out holds up to len - 1 bytes of its
 * output, NUL-terminated, trailing newlines removed. */
int spawn_capture(char *const argv[], char *out, size_t len, int timeout_ms);

/* The same with its stderr in out too (after its stdout's bytes, as they come): for an
 * engine command whose failure the caller reports. */
int spawn_capture_all(char *const argv[], char *out, size_t len, int timeout_ms);

/* True when name is an executable on PATH. */
int on_path(const char *name);

#endif
