/* A run's private directory: BASE/PREFIX.RANDOM, mode 700, RANDOM 16 hex
 * digits from the kernel's random source.  mkdir(2) never follows a link and
 * fails on any existing name, so a name someone made first (another local
 * user guessing, or squatting the old PID-based names) is skipped: a few new
 * names are tried, then the run stops, saying so. */
#ifndef CLI_SANDBOX_HOSTCTL_PRIVATE_DIR_H
#define CLI_SANDBOX_HOSTCTL_PRIVATE_DIR_H

#include <stddef.h>

#include "base/status.h"

#define PRIVATE_DIR_TRIES 5

/* Fills buf with n random bytes; 0, or -1 when it cannot. */
typedef int (*private_dir_random_fn)(unsigned char *buf, size_t n);

/* Makes the directory and puts its path in out; 0, or -1 with err set
 * (CS_EXIT_CONFIG: the name's fix).  rnd NULL: getrandom(2). */
int private_dir(const char *base, const char *prefix, char *out, size_t len, private_dir_random_fn rnd,
		struct cs_error *err);

#endif
