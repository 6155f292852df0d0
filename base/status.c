#include "base/status.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

int cs_fail(struct cs_error *err, int status, const char *fmt, ...)
{
	va_list ap;

	err->status = status;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	/* One line, always: a message must never smuggle a newline into the log. */
	for (char *p = err->msg; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	return -1;
}

/* Where the lines go.  Until cs_output_nonblocking(): stdio's stderr, as
 * any program writes.  After it (PID 1, once it only supervises): a
 * descriptor that never blocks, so a terminal the command stopped
 * (tcflow(TCOOFF)) or a pipe nobody reads costs lines, never PID 1. */
static enum { OUT_STDIO, OUT_OWN, OUT_SOCKET, OUT_POLL } out_mode = OUT_STDIO;
static int out_fd = STDERR_FILENO;
static unsigned long long out_dropped;  /* lines not taken, not reported yet */
static bool out_cut;                    /* the last line was cut short */

void cs_output_nonblocking(void)
{
	struct stat st;
	int fd;

	if (out_mode != OUT_STDIO || fstat(STDERR_FILENO, &st) != 0)
		return;
	fflush(stderr);
	if (S_ISREG(st.st_mode))
		return;  /* a file takes every write without waiting for a reader */
	if (S_ISSOCK(st.st_mode)) {
		out_mode = OUT_SOCKET;  /* send(MSG_DONTWAIT) needs no flag on the file */
		return;
	}
	/* A terminal, a pipe, a character device: a new open file description
	 * of the same file, non-blocking.  O_NONBLOCK on fd 2 itself would be
	 * set on the description that the command shares, and change its
	 * terminal too (its writes would fail with EAGAIN). */
	fd = open("/proc/self/fd/2", O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd >= 0) {
		out_fd = fd;
		out_mode = OUT_OWN;
		return;
	}
	/* Not reopenable (no /proc, a terminal this identity may not open):
	 * write only what poll says fits at once. */
	out_mode = OUT_POLL;
}

unsigned long long cs_output_dropped(void)
{
	return out_dropped;
}

/* One non-blocking write: the bytes taken, or -1. */
static ssize_t put_some(const char *s, size_t n)
{
	ssize_t w;

	if (out_mode == OUT_SOCKET)
		return send(out_fd, s, n, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (out_mode == OUT_POLL) {
		struct pollfd pfd = { .fd = out_fd, .events = POLLOUT };

		if (poll(&pfd, 1, 0) != 1 || !(pfd.revents & POLLOUT))
			return -1;
	}
	do
		w = write(out_fd, s, n);
	while (w < 0 && errno == EINTR);
	return w;
}

/* A whole line or nothing counted: a line the descriptor does not take is
 * dropped (and counted, reported before the next line that gets through);
 * one it takes in part is cut, and the next line starts on a line of its
 * own. */
static void put_line_nonblocking(const char *line, size_t n)
{
	char note[128];
	ssize_t w;

	if (out_cut) {
		if (put_some("\n", 1) != 1) {
			out_dropped++;
			return;
		}
		out_cut = false;
	}
	if (out_dropped) {
		int k = snprintf(note, sizeof(note),
				 "cli-sandbox-init: warning: %llu line(s) dropped: stderr did not take them at once\n", out_dropped);

		w = k > 0 ? put_some(note, (size_t)k) : -1;
		if (w != k) {
			out_cut = w > 0;
			out_dropped++;
			return;
		}
		out_dropped = 0;
	}
	w = put_some(line, n);
	if (w == (ssize_t)n)
		return;
	out_cut = w > 0;
	out_dropped++;
}

void cs_write_line(const char *line, size_t n)
{
	if (out_mode == OUT_STDIO) {
		fwrite(line, 1, n, stderr);
		fflush(stderr);
		return;
	}
	put_line_nonblocking(line, n);
}

__attribute__((format(printf, 2, 0)))
static void print_line(const char *kind, const char *fmt, va_list ap)
{
	char line[1200], out[1300];
	int n;

	vsnprintf(line, sizeof(line), fmt, ap);
	for (char *p = line; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	n = snprintf(out, sizeof(out), "cli-sandbox-init: %s%s\n", kind, line);
	if (n > 0)
		cs_write_line(out, (size_t)n < sizeof(out) ? (size_t)n : sizeof(out) - 1);
}

int cs_print_error(const struct cs_error *err)
{
	char out[sizeof(err->msg) + 64];
	int n = snprintf(out, sizeof(out), "cli-sandbox-init: error: %s\n", err->msg);

	if (n > 0)
		cs_write_line(out, (size_t)n < sizeof(out) ? (size_t)n : sizeof(out) - 1);
	return err->status;
}

static bool muted_lines;

void cs_mute(bool muted)
{
	muted_lines = muted;
}

void cs_warn(const char *fmt, ...)
{
	va_list ap;

	if (muted_lines)
		return;
	va_start(ap, fmt);
	print_line("warning: ", fmt, ap);
	va_end(ap);
}

void cs_info(const char *fmt, ...)
{
	va_list ap;

	if (muted_lines)
		return;
	va_start(ap, fmt);
	print_line("", fmt, ap);
	va_end(ap);
}
