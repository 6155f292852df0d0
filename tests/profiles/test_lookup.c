/* Bounded name resolution: every answer comes back to its name, a batch
 * pass answers first and the per-name resolver gets only what it left, the
 * names resolve at the same time, a slow resolver is cut off at the deadline, a
 * crashing one costs only the names not answered yet, and no process is
 * left behind. */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "profiles/lookup.h"
#include "check.h"

#define A(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (uint32_t)(d))

/* Callers of "meet.test" so far (the resolver child's threads share it). */
static atomic_int meeting;

static size_t fake(const char *name, uint32_t *addrs, size_t max, void *ctx)
{
	(void)ctx;
	if (strcmp(name, "meet.test") == 0) {
		/* Answers only once four lookups are in progress together (or
		 * gives up after 10 s, wide for a loaded machine: the wait ends
		 * as soon as they meet): one after the other, none would. */
		atomic_fetch_add(&meeting, 1);
		for (int i = 0; i < 1000 && atomic_load(&meeting) < 4; i++)
			usleep(10000);
		addrs[0] = A(192, 0, 2, 40);
		return atomic_load(&meeting) >= 4 ? 1 : 0;
	}
	if (strcmp(name, "slow.test") == 0)
		sleep(30);
	if (strcmp(name, "late.test") == 0)
		usleep(50000);  /* slower than a cache: the resolver child goes parallel */
	if (strcmp(name, "crash.test") == 0)
		raise(SIGKILL);  /* a crash, without a core file */
	if (strcmp(name, "many.test") == 0) {
		for (size_t i = 0; i < max; i++)
			addrs[i] = A(198, 51, 100, 0) + (uint32_t)i;
		return max + 5;  /* a resolver that claims more than it may give */
	}
	if (strcmp(name, "api.test") == 0) {
		addrs[0] = A(192, 0, 2, 10);
		addrs[1] = A(192, 0, 2, 11);
		return 2;
	}
	return 0;
}

/* A batch pass (as dns_stub_batch) that answers "api.test" and
 * "batch.test" with its own addresses and leaves the rest. */
static void batch_fn(const char *const *names, size_t n, struct lookup_result *out, void *ctx)
{
	(void)ctx;
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], "api.test") == 0 || strcmp(names[i], "batch.test") == 0) {
			out[i].answered = true;
			out[i].n = 1;
			out[i].addrs[0] = A(198, 51, 100, 77);
		}
}

/* The per-name resolver of the batch test: it must never see a name the
 * batch answered (it writes into a pipe the parent reads; the child's
 * memory is its own). */
static int asked_fd = -1;

static size_t counting(const char *name, uint32_t *addrs, size_t max, void *ctx)
{
	if (asked_fd >= 0 && write(asked_fd, name, strlen(name) + 1) < 0)
		return 0;
	return fake(name, addrs, max, ctx);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int no_children(void)
{
	return waitpid(-1, NULL, WNOHANG) == -1 && errno == ECHILD;
}

int main(void)
{
	struct lookup_result r[4];
	struct cs_error err = { 0 };
	const char *names[] = { "api.test", "none.test", "many.test", "slow.test" };
	double t0;

	CHECK(lookup_all(fake, NULL, NULL, NULL, names, 3, 5000, r, &err) == 0, "%s", err.msg);
	CHECK(r[0].answered && r[0].n == 2 && r[0].addrs[0] == A(192, 0, 2, 10) && r[0].addrs[1] == A(192, 0, 2, 11), "api.test");
	CHECK(r[1].answered && r[1].n == 0, "none.test answered, no address");
	CHECK(r[2].answered && r[2].n == LOOKUP_MAX_ADDRS && r[2].addrs[LOOKUP_MAX_ADDRS - 1] == A(198, 51, 100, 31),
	      "many.test capped at %d", LOOKUP_MAX_ADDRS);
	CHECK(no_children(), "resolver reaped");

	/* a resolver that hangs (30 s): the total time is bounded, the earlier
	 * answers stay.  The deadline (2 s) leaves a loaded machine time for
	 * the instant ones; the bound checked (10 s) is far from the hang. */
	t0 = now();
	CHECK(lookup_all(fake, NULL, NULL, NULL, names, 4, 2000, r, &err) == 0, "%s", err.msg);
	CHECK(now() - t0 < 10.0, "deadline kept: %.2f s", now() - t0);
	CHECK(r[0].answered && r[0].n == 2 && r[2].answered && !r[3].answered, "slow.test cut off");
	CHECK(no_children(), "slow resolver killed and reaped");

	/* a resolver that crashes: its name, and any not answered yet, stay unanswered */
	const char *crash[] = { "api.test", "crash.test", "none.test" };

	/* a deadline of 30 s: ending well before it (10 s, wide for a loaded
	 * machine) is the crash's doing */
	t0 = now();
	CHECK(lookup_all(fake, NULL, NULL, NULL, crash, 3, 30000, r, &err) == 0, "%s", err.msg);
	CHECK(now() - t0 < 10.0, "a crash ends the wait: %.2f s", now() - t0);
	CHECK(!r[1].answered, "crash.test unanswered");
	CHECK(no_children(), "crashed resolver reaped");

	/* concurrency: once an answer is slow, the rest resolve at once (four
	 * lookups that each wait for the other three) */
	{
		const char *meet[] = { "late.test", "meet.test", "meet.test", "meet.test", "meet.test" };
		struct lookup_result m[5];
		int met = 0;

		CHECK(lookup_all(fake, NULL, NULL, NULL, meet, 5, 30000, m, &err) == 0, "%s", err.msg);
		for (int i = 1; i < 5; i++)
			met += m[i].answered && m[i].n == 1;
		CHECK(m[0].answered && met == 4, "after a slow answer the names resolve at the same time (%d of 4 met)", met);
		CHECK(no_children(), "resolver reaped");
	}

	/* the batch pass first: its answers stand, the rest go to the resolver */
	{
		const char *mixed[] = { "api.test", "none.test", "batch.test" };
		struct lookup_batch batch = { batch_fn, NULL };
		char asked[256] = "";
		int fds[2];
		ssize_t got;

		CHECK(pipe(fds) == 0, "a pipe for the names the resolver saw");
		asked_fd = fds[1];
		CHECK(lookup_all(counting, NULL, NULL, &batch, mixed, 3, 5000, r, &err) == 0, "%s", err.msg);
		close(fds[1]);
		asked_fd = -1;
		got = read(fds[0], asked, sizeof(asked) - 1);
		close(fds[0]);
		CHECK(r[0].answered && r[0].n == 1 && r[0].addrs[0] == A(198, 51, 100, 77),
		      "api.test: the batch's answer, not the resolver's");
		CHECK(r[2].answered && r[2].n == 1 && r[2].addrs[0] == A(198, 51, 100, 77), "batch.test: the batch's answer");
		CHECK(r[1].answered && r[1].n == 0, "none.test: left to the resolver, which found nothing");
		CHECK(got == (ssize_t)sizeof("none.test") && strcmp(asked, "none.test") == 0,
		      "the resolver was asked none.test only (it saw %zd bytes: '%s')", got, asked);
		CHECK(no_children(), "resolver reaped");
	}

	CHECK(lookup_all(fake, NULL, NULL, NULL, names, 0, 5000, r, &err) == 0 && no_children(), "no names: no process");
	return check_done("profiles/lookup");
}
