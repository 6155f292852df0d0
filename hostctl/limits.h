/* What a runaway agent cannot cross (docs/host-script.md, "Limits"):
 * processes, memory with no extra swap, CPUs, open files per process, and
 * /tmp in memory.  Each comes from its option, else its variable, else a
 * default drawn from this host; a malformed or out-of-range value stops
 * the run with one line naming the option and a value that works. */
#ifndef CLI_SANDBOX_HOSTCTL_LIMITS_H
#define CLI_SANDBOX_HOSTCTL_LIMITS_H

#include <stddef.h>

#include "base/status.h"

/* What the person asked for (NULL or "": the default) and this host. */
struct limits_in {
	const char *pids, *memory, *cpus, *nofile, *tmp;
	unsigned long long host_mib;    /* the memory the engine's containers can have */
	unsigned long long host_cpus;   /* at least 1 */
	unsigned long long nofile_hard; /* this process's hard limit; 0: unknown or unlimited */
};

struct limits {
	unsigned long long pids, mem_mib, nofile, tmp_mib;
	char cpus[32];  /* as given (2, 1.5), for the engine's --cpus */
};

/* Defaults: 4096 processes; half the host's memory, at most 8 GiB; all CPUs
 * but one (at least 1); 65536 open files, within the hard limit; /tmp a
 * quarter of the memory, at most 1 GiB. */
int limits_compute(const struct limits_in *in, struct limits *out, struct cs_error *err);

/* A size as the engines' --memory reads it (N, Nk, Nm, Ng, a trailing b
 * allowed) in MiB, rounded down; -1 when malformed. */
int size_to_mib(const char *s, unsigned long long *mib);

/* The limits on one line, for doctor. */
void limits_text(const struct limits *l, char *out, size_t len);

#endif
