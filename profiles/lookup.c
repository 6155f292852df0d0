#include "profiles/lookup.h"

#include "base/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* One answer, written with one write(): smaller than PIPE_BUF, so atomic. */
struct record {
	uint32_t index;                     /* ISOLATION_FAILED: why[] says why */
	uint32_t n;
	union {
		uint32_t addrs[LOOKUP_MAX_ADDRS];
		char why[LOOKUP_MAX_ADDRS * sizeof(uint32_t)];
	};
};
#define ISOLATION_FAILED UINT32_MAX

static void write_record(int fd, const struct record *r)
{
	ssize_t w;

	do
		w = write(fd, r, sizeof(*r));
	while (w < 0 && errno == EINTR);
	if (w != (ssize_t)sizeof(*r))
		_exit(1);
}

/* The names, shared by the resolver child's threads: each takes the next
 * one until none is left, and writes its answer as one record. */
#define LOOKUP_PARALLEL 15              /* threads besides the child's own */
#define LOOKUP_THREAD_STACK (256 * 1024)
#define LOOKUP_FAST_US 2000             /* an answer from a cache or the host */

struct workers {
	int fd;
	lookup_fn fn;
	void *ctx;
	const char *const *names;
	const size_t *todo;         /* the indexes of the names left to resolve */
	size_t n;                   /* how many */
	atomic_size_t next;
};

/* Resolves the next name; false when none is left. */
static bool resolve_next(struct workers *w)
{
	size_t k = atomic_fetch_add(&w->next, 1), i;
	struct record r;
	size_t got;

	if (k >= w->n)
		return false;
	i = w->todo[k];
	memset(&r, 0, sizeof(r));
	r.index = (uint32_t)i;
	got = w->fn(w->names[i], r.addrs, LOOKUP_MAX_ADDRS, w->ctx);
	r.n = (uint32_t)(got > LOOKUP_MAX_ADDRS ? LOOKUP_MAX_ADDRS : got);
	write_record(w->fd, &r);  /* one write below PIPE_BUF: never interleaved */
	return true;
}

static void *resolve_some(void *arg)
{
	while (resolve_next(arg))
		;
	return NULL;
}

/* Resolves names while each answer comes within LOOKUP_FAST_US; true when
 * one did not and names are left. */
static bool resolve_while_fast(struct workers *w)
{
	for (;;) {
		struct timespec a, b;

		clock_gettime(CLOCK_MONOTONIC, &a);
		if (!resolve_next(w))
			return false;
		clock_gettime(CLOCK_MONOTONIC, &b);
		if ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 > LOOKUP_FAST_US)
			return atomic_load(&w->next) < w->n;
	}
}

/* glibc parses answers from the network here, so the child first sheds
 * every privilege (iso); if it cannot, it resolves nothing and says why. */
/* The batch pass: its answers go out at once; *left names remain, their
 * indexes in todo. */
static void run_batch(int fd, const struct lookup_batch *batch, const char *const *names, size_t n,
		      size_t *todo, size_t *left)
{
	struct lookup_result *pre = batch && batch->fn ? calloc(n, sizeof(*pre)) : NULL;

	*left = 0;
	if (pre)
		batch->fn(names, n, pre, batch->ctx);
	for (size_t i = 0; i < n; i++) {
		struct record r;

		if (!pre || !pre[i].answered || pre[i].n == 0 || pre[i].n > LOOKUP_MAX_ADDRS) {
			todo[(*left)++] = i;
			continue;
		}
		memset(&r, 0, sizeof(r));
		r.index = (uint32_t)i;
		r.n = (uint32_t)pre[i].n;
		memcpy(r.addrs, pre[i].addrs, pre[i].n * sizeof(uint32_t));
		write_record(fd, &r);
	}
	free(pre);
}

static void child(int fd, lookup_fn fn, void *ctx, const struct lookup_isolation *iso,
		  const struct lookup_batch *batch, const char *const *names, size_t n)
{
	size_t *todo, left;

	if (iso && iso->fn) {
		struct cs_error e = { 0 };

		if (iso->fn(iso->ctx, &e) != 0) {
			struct record r = { .index = ISOLATION_FAILED };

			snprintf(r.why, sizeof(r.why), "%.*s", (int)sizeof(r.why) - 1, e.msg);
			write_record(fd, &r);
			_exit(CS_EXIT_OSERR);
		}
	}
	todo = malloc(n * sizeof(*todo));
	if (!todo)
		_exit(1);  /* the parent warns that the names went unanswered */
	run_batch(fd, batch, names, n, todo, &left);
	{
		struct workers w = { .fd = fd, .fn = fn, .ctx = ctx, .names = names, .todo = todo, .n = left };
		pthread_t tid[LOOKUP_PARALLEL];
		pthread_attr_t attr;
		size_t started = 0;

		/* One name after the other while the resolver answers at once (a
		 * cache in the container: threads would cost more than they save);
		 * once one answer is slow, the rest resolve at once, so a distant
		 * resolver costs about two round trips, not one per name.  A
		 * thread that cannot start leaves its share to the others. */
		if (resolve_while_fast(&w) && pthread_attr_init(&attr) == 0) {
			size_t rest = left - atomic_load(&w.next);  /* this thread takes one of them */

			pthread_attr_setstacksize(&attr, LOOKUP_THREAD_STACK);
			while (started < LOOKUP_PARALLEL && started + 1 < rest &&
			       pthread_create(&tid[started], &attr, resolve_some, &w) == 0)
				started++;
			pthread_attr_destroy(&attr);
		}
		resolve_some(&w);  /* whatever is left, threads or none */
		for (size_t i = 0; i < started; i++)
			pthread_join(tid[i], NULL);
	}
	_exit(0);
}

bool lookup_readable(int fd, int64_t deadline)
{
	for (;;) {
		int64_t left = deadline - cs_now_ms();
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int rc;

		if (left <= 0)
			return false;
		rc = poll(&pfd, 1, (int)left);
		if (rc < 0 && errno == EINTR)
			continue;
		return rc > 0;
	}
}

/* Reads records until all n are in, the pipe closes or the deadline passes. */
static void collect(int fd, size_t n, int64_t deadline, struct lookup_result *results,
		    char *why, size_t why_len)
{
	union {
		struct record r;
		unsigned char b[sizeof(struct record)];
	} buf;
	size_t have = 0, answered = 0;

	while (answered < n) {
		ssize_t got;

		if (!lookup_readable(fd, deadline))
			return;
		got = read(fd, buf.b + have, sizeof(buf) - have);
		if (got < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (got <= 0)
			return;  /* the child ended (or died) early */
		have += (size_t)got;
		if (have < sizeof(buf))
			continue;
		have = 0;
		if (buf.r.index == ISOLATION_FAILED) {
			snprintf(why, why_len, "%.*s", (int)sizeof(buf.r.why), buf.r.why);
			return;
		}
		if (buf.r.index < n && buf.r.n <= LOOKUP_MAX_ADDRS && !results[buf.r.index].answered) {
			struct lookup_result *res = &results[buf.r.index];

			res->answered = true;
			res->n = buf.r.n;
			memcpy(res->addrs, buf.r.addrs, buf.r.n * sizeof(uint32_t));
			answered++;
		}
	}
}

int lookup_all(lookup_fn fn, void *ctx, const struct lookup_isolation *iso, const struct lookup_batch *batch,
	       const char *const *names, size_t n, unsigned timeout_ms,
	       struct lookup_result *results, struct cs_error *err)
{
	int64_t deadline = cs_now_ms() + timeout_ms;
	char why[sizeof(((struct record *)0)->why) + 1] = "";
	int fds[2], status = 0;
	pid_t pid;

	memset(results, 0, n * sizeof(*results));
	if (n == 0)
		return 0;
	if (pipe2(fds, O_CLOEXEC))
		return cs_fail(err, CS_EXIT_OSERR, "cannot create a pipe for name resolution: %s", strerror(errno));
	fflush(NULL);  /* the child never flushes, but keep its copy of stdio empty */
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return cs_fail(err, CS_EXIT_OSERR, "cannot start the name resolver process: %s", strerror(errno));
	}
	if (pid == 0) {
		close(fds[0]);
		child(fds[1], fn, ctx, iso, batch, names, n);
	}
	close(fds[1]);
	collect(fds[0], n, deadline, results, why, sizeof(why));
	close(fds[0]);
	kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (why[0])
		return cs_fail(err, CS_EXIT_OSERR, "the name resolver process could not shed its privileges (%s); the command is not started", why);
	/* Its seccomp filter kills it (SIGSYS) for a call outside its list: a
	 * hostile answer that steered glibc somewhere new, or a resolver that
	 * needs more than it was given.  Either way none of its answers is
	 * believed.  (A child that was dying of it already when our SIGKILL
	 * came still reports SIGSYS.  Any other crash costs only the names it
	 * had not answered, as before.) */
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS)
		return cs_fail(err, CS_EXIT_OSERR,
			       "the name resolver process was killed by its seccomp filter (SIGSYS: a system call outside its list); "
			       "none of its answers is used and the command is not started");
	return 0;
}
