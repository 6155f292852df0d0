/* Shared by the libFuzzer harnesses: the invariant check, and a file view of
 * the input for the parsers that read files (passwd, group, resolv.conf,
 * the route table). */
#ifndef CLI_SANDBOX_FUZZ_H
#define CLI_SANDBOX_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/status.h"

/* libFuzzer's entry point, defined by each harness (declared here for
 * -Wmissing-prototypes). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken invariant is a crash: libFuzzer keeps the input. */
static inline void invariant(int ok)
{
	if (!ok)
		abort();
}

/* Every rejection follows the one error style: a status, one line. */
static inline void invariant_error(const struct cs_error *err, int status)
{
	invariant(err->status == status && err->msg[0] && strchr(err->msg, '\n') == NULL);
}

/* The input as a file: one memfd per slot, rewritten for every input, named
 * by its /proc/self/fd path (which the parsers open as any path). */
static inline const char *fuzz_file(int slot, const uint8_t *data, size_t size)
{
	static int fds[4] = { -1, -1, -1, -1 };
	static char paths[4][32];

	if (fds[slot] < 0) {
		fds[slot] = memfd_create("fuzz-input", MFD_CLOEXEC);
		invariant(fds[slot] >= 0);
		snprintf(paths[slot], sizeof(paths[slot]), "/proc/self/fd/%d", fds[slot]);
	}
	invariant(ftruncate(fds[slot], 0) == 0);
	invariant(size == 0 || pwrite(fds[slot], data, size, 0) == (ssize_t)size);
	return paths[slot];
}

/* Splits data at the first "\n--\n" into two parts (the second may be empty). */
static inline void fuzz_split(const uint8_t *data, size_t size, size_t *first, const uint8_t **second,
			      size_t *second_size)
{
	const uint8_t *sep = memmem(data, size, "\n--\n", 4);

	*first = sep ? (size_t)(sep - data) + 1 : size;
	*second = sep ? sep + 4 : data + size;
	*second_size = (size_t)(data + size - *second);
}

#endif
