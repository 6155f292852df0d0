/* Resolving the profile's names with a bound on the total time.
 *
 * getaddrinfo has no timeout, and one dead nameserver can stall it for
 * (timeout x attempts) per name.  A batch pass may answer names first, all
 * at once; the others are resolved one after the other while answers come
 * fast, then the rest at once (up to 16 threads),
 * in a child process that reports each answer through a pipe; the parent
 * waits until every name is answered or the deadline passes, then kills and
 * reaps the child.  Nothing is left behind: no thread that keeps running
 * with the init's privileges, no process. */
#ifndef CLI_SANDBOX_LOOKUP_H
#define CLI_SANDBOX_LOOKUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/status.h"

#define LOOKUP_MAX_ADDRS 32         /* addresses kept per name */
#define LOOKUP_TIMEOUT_MS 5000      /* for all names together */

/* Waits until fd is readable (true) or the deadline (cs_now_ms) passes. */
bool lookup_readable(int fd, int64_t deadline);

typedef size_t (*lookup_fn)(const char *name, uint32_t *addrs, size_t max, void *ctx);

/* Run first in the resolver child, before any name is resolved: it drops
 * every privilege (the init passes caps/ privileges_isolate), because glibc
 * parses DNS answers from the network in that process.  0, or -1 with err:
 * then nothing is resolved and lookup_all() fails (71). */
struct lookup_isolation {
	int (*fn)(void *ctx, struct cs_error *err);
	void *ctx;
};

struct lookup_result {
	bool answered;                  /* false: the deadline passed first */
	size_t n;                       /* 0: the name does not resolve */
	uint32_t addrs[LOOKUP_MAX_ADDRS];
};

/* A first pass over all the names at once, in the child after the
 * isolation (profiles/dns_stub.h): fn sets out[i].answered, with the
 * addresses, for every name it resolved; fn of lookup_all resolves the
 * others. */
struct lookup_batch {
	void (*fn)(const char *const *names, size_t n, struct lookup_result *out, void *ctx);
	void *ctx;
};

/* Resolves names[0..n) in a child isolated by iso (NULL: as is): with batch
 * first where one is given (NULL: none), then with fn, all within
 * timeout_ms.  0, or -1 with err (71) when the resolver process cannot be
 * started or cannot be isolated, or when its seccomp filter killed it
 * (SIGSYS) before the parent ended it: then no answer of its counts. */
int lookup_all(lookup_fn fn, void *ctx, const struct lookup_isolation *iso, const struct lookup_batch *batch,
	       const char *const *names, size_t n, unsigned timeout_ms,
	       struct lookup_result *results, struct cs_error *err);

#endif
