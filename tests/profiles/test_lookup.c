/* Bounded name resolution: every answer comes back to its name, the names
 * resolve at the same time, a slow resolver is cut off at the deadline, a
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
		 * gives up after 3 s): one after the other, none would. */
		atomic_fetch_add(&meeting, 1);
		for (int i = 0; i < 300 && atomic_load(&meeting) < 4; i++)
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

	/* a resolver that hangs: the total time is bounded, the earlier answers stay */
	t0 = now();
	CHECK(lookup_all(fake, NULL, NULL, NULL, names, 4, 300, r, &err) == 0, "%s", err.msg);
	CHECK(now() - t0 < 2.0, "deadline kept: %.2f s", now() - t0);
	CHECK(r[0].answered && r[0].n == 2 && r[2].answered && !r[3].answered, "slow.test cut off");
	CHECK(no_children(), "slow resolver killed and reaped");

	/* a resolver that crashes: its name, and any not answered yet, stay unanswered */
	const char *crash[] = { "api.test", "crash.test", "none.test" };

	t0 = now();
	CHECK(lookup_all(fake, NULL, NULL, NULL, crash, 3, 5000, r, &err) == 0, "%s", err.msg);
	CHECK(now() - t0 < 2.0, "a crash ends the wait: %.2f s", now() - t0);
	CHECK(!r[1].answered, "crash.test unanswered");
	CHECK(no_children(), "crashed resolver reaped");

	/* concurrency: once an answer is slow, the rest resolve at once (four
	 * lookups that each wait for the other three) */
	{
		const char *meet[] = { "late.test", "meet.test", "meet.test", "meet.test", "meet.test" };
		struct lookup_result m[5];
		int met = 0;

		CHECK(lookup_all(fake, NULL, NULL, NULL, meet, 5, 10000, m, &err) == 0, "%s", err.msg);
		for (int i = 1; i < 5; i++)
			met += m[i].answered && m[i].n == 1;
		CHECK(m[0].answered && met == 4, "after a slow answer the names resolve at the same time (%d of 4 met)", met);
		CHECK(no_children(), "resolver reaped");
	}

	CHECK(lookup_all(fake, NULL, NULL, NULL, names, 0, 5000, r, &err) == 0 && no_children(), "no names: no process");
	return check_done("profiles/lookup");
}
