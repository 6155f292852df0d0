/* Benchmark (prints figures, asserts only that every install succeeded):
 * what sandbox_filter_install() costs, measured where the init pays it, in
 * a fresh process: the first install (what the command's process and PID 1
 * each pay once) and a second one in the same process.  Each run is a fresh
 * fork, so nothing a previous run cached or installed is inherited.  No
 * privileges needed (it sets no_new_privs itself, as the drop does).
 *
 * usage: filter_install [RUNS]   (default 200; both variants are timed) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "caps/sandbox_filter.h"

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* One run in a child: the first and the second install, in ns, through a
 * pipe.  -1 when the child failed. */
static int run_once(bool allow_userns, int64_t out[2])
{
	int fds[2], st;
	pid_t pid;

	if (pipe(fds) != 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		struct cs_error err = { 0 };
		int64_t t[3];

		close(fds[0]);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
			_exit(1);
		t[0] = now_ns();
		if (sandbox_filter_install(allow_userns, &err))
			_exit(2);
		t[1] = now_ns();
		if (sandbox_filter_install(allow_userns, &err))
			_exit(3);
		t[2] = now_ns();
		out[0] = t[1] - t[0];
		out[1] = t[2] - t[1];
		_exit(write(fds[1], out, 2 * sizeof(out[0])) == (ssize_t)(2 * sizeof(out[0])) ? 0 : 4);
	}
	close(fds[1]);
	if (read(fds[0], out, 2 * sizeof(out[0])) != (ssize_t)(2 * sizeof(out[0])))
		out[0] = -1;
	close(fds[0]);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0 || out[0] < 0)
		return -1;
	return 0;
}

static void print_figures(const char *what, int64_t *v, int n)
{
	qsort(v, (size_t)n, sizeof(v[0]), by_value);
	printf("# %s: median %.3f ms, p10 %.3f ms, p90 %.3f ms (%d runs)\n", what, v[n / 2] / 1e6,
	       v[n / 10] / 1e6, v[n - 1 - n / 10] / 1e6, n);
}

int main(int argc, char **argv)
{
	int runs = argc > 1 ? atoi(argv[1]) : 200;
	int failures = 0;

	if (runs < 10 || runs > 100000) {
		fputs("usage: filter_install [RUNS (10..100000)]\n", stderr);
		return 2;
	}
	for (int userns = 0; userns <= 1; userns++) {
		int64_t *first = calloc((size_t)runs, sizeof(int64_t));
		int64_t *second = calloc((size_t)runs, sizeof(int64_t));
		char what[96];

		if (!first || !second)
			return 1;
		for (int i = 0; i < runs; i++) {
			int64_t t[2];

			if (run_once(userns, t) != 0) {
				failures++;
				t[0] = t[1] = 0;
			}
			first[i] = t[0];
			second[i] = t[1];
		}
		snprintf(what, sizeof(what), "allow_userns=%s, first install in a fresh process", userns ? "true" : "false");
		print_figures(what, first, runs);
		snprintf(what, sizeof(what), "allow_userns=%s, second install, same process", userns ? "true" : "false");
		print_figures(what, second, runs);
		free(first);
		free(second);
	}
	printf("%s 1 - every install succeeded (%d failed)\n1..1\n", failures ? "not ok" : "ok", failures);
	return failures != 0;
}
