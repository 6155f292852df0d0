/* PID 1's lines never block (issue 23, item 2): after
 * cs_output_nonblocking(), a pipe that nobody reads and a terminal that the
 * command stopped (tcflow(TCOOFF)) cost lines, dropped and counted, never
 * the writer; the count is reported once the output flows again; and the
 * shared stderr keeps its flags (the command's terminal stays blocking).
 * Each case runs in a child of its own, under alarm(): a writer that blocks
 * dies of SIGALRM and the check fails. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "base/status.h"
#include "check.h"

#define LINES 300

static void flood(void)
{
	char big[900];

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	for (int i = 0; i < LINES; i++)
		cs_warn("line %d %s", i, big);
}

/* Runs fn in a child with stderr on fd; its exit status, 128+N for a signal. */
static int in_child(int fd, int (*fn)(void))
{
	int st;
	pid_t p = fork();

	if (p == 0) {
		dup2(fd, STDERR_FILENO);
		alarm(10);
		_exit(fn());
	}
	while (waitpid(p, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int pipe_case(void)
{
	/* fill the pipe through a description of our own: fd 2 stays blocking */
	int w = open("/proc/self/fd/2", O_WRONLY | O_NONBLOCK);
	char block[4096] = { 0 };

	while (w >= 0 && write(w, block, sizeof(block)) > 0)
		;
	cs_output_nonblocking();
	flood();
	if (fcntl(STDERR_FILENO, F_GETFL) & O_NONBLOCK)
		return 3;  /* the shared description changed */
	return cs_output_dropped() == LINES ? 0 : 4;
}

static int tty_case(void)
{
	unsigned long long dropped;

	if (tcflow(STDERR_FILENO, TCOOFF) != 0)
		return 5;
	cs_output_nonblocking();
	flood();
	dropped = cs_output_dropped();
	if (fcntl(STDERR_FILENO, F_GETFL) & O_NONBLOCK)
		return 3;
	tcflow(STDERR_FILENO, TCOON);
	cs_warn("after the flood");
	return dropped == LINES && cs_output_dropped() == 0 ? 0 : 4;
}

static void test_pipe(void)
{
	int p[2];
	int rc;

	CHECK(pipe(p) == 0, "pipe");
	rc = in_child(p[1], pipe_case);
	CHECK(rc == 0, "a full pipe nobody reads: every line dropped and counted, the writer never waits, "
		       "fd 2 stays blocking (child status %d)", rc);
	close(p[0]);
	close(p[1]);
}

static void test_tty(void)
{
	int master, slave, rc;
	char buf[65536];
	size_t have = 0;

	if (openpty(&master, &slave, NULL, NULL, NULL) != 0) {
		CHECK(0, "openpty: %s", strerror(errno));
		return;
	}
	rc = in_child(slave, tty_case);
	CHECK(rc == 0, "a terminal stopped with tcflow(TCOOFF): every line dropped and counted, the writer never "
		       "waits, the terminal's flags unchanged (child status %d)", rc);
	close(slave);
	fcntl(master, F_SETFL, O_NONBLOCK);
	for (;;) {
		ssize_t n = read(master, buf + have, sizeof(buf) - 1 - have);

		if (n <= 0)
			break;
		have += (size_t)n;
	}
	buf[have] = '\0';
	CHECK(strstr(buf, "300 line(s) dropped") != NULL, "once the terminal flows again, the count is reported first");
	CHECK(strstr(buf, "after the flood") != NULL && strstr(buf, "line 0 ") == NULL,
	      "then the next line; none of the flood's lines got through");
	close(master);
}

int main(void)
{
	test_pipe();
	test_tty();
	return check_done("test_output");
}
