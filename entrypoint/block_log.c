#include "entrypoint/block_log.h"

#include "base/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "entrypoint/blocked_lines.h"
#include "entrypoint/supervisor.h"
#include "netfilter/model.h"
#include "netfilter/nflog.h"

#define DATAGRAMS_PER_WAKEUP 32  /* then back to the loop: signals come first */
#define LOST_WARN_MS 60000       /* at most one "messages lost" warning a minute */

/* One block log per process: PID 1's.  Fixed size, whatever the flood. */
static struct {
	struct mnl_socket *nl;
	int file;              /* -1: no file, stderr only */
	bool to_stderr;        /* false when stderr is the command's terminal */
	long long file_bytes;
	struct blocked_lines lines;
	uint64_t lost;         /* ENOBUFS: messages the kernel could not queue */
	int64_t lost_warned_ms;
} blog = { .file = -1 };

static void write_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;  /* a full disk or a closed log loses lines, nothing else */
		s += w;
		n -= (size_t)w;
	}
}

static void file_header(const char *why)
{
	char line[320], stamp[32] = "?";
	time_t now = time(NULL);
	struct tm tm;
	int n;

	if (gmtime_r(&now, &tm))
		strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	n = snprintf(line, sizeof(line),
		     "# cli-sandbox block log, %s %s: egress the firewall refused, one line per flow "
		     "(repeats within %d s counted, at most %d lines/s)\n",
		     why, stamp, BLOCKED_REPEAT_MS / 1000, BLOCKED_LINES_PER_S);
	if (n > 0 && (size_t)n < sizeof(line)) {
		write_all(blog.file, line, (size_t)n);
		blog.file_bytes += n;
	}
}

static void emit(const char *line)
{
	char out[BLOCKED_LINE_MAX + 40];
	int n;

	if (blog.file >= 0) {
		n = snprintf(out, sizeof(out), "%s\n", line);
		if (blog.file_bytes + n > BLOCK_LOG_MAX_BYTES) {
			/* Bounded: the file starts over rather than fill the disk.
			 * O_APPEND puts the next line at the new end. */
			if (ftruncate(blog.file, 0) == 0) {
				blog.file_bytes = 0;
				file_header("restarted (size limit) at");
			}
		}
		if (n > 0 && (size_t)n < sizeof(out)) {
			write_all(blog.file, out, (size_t)n);
			blog.file_bytes += n;
		}
	}
	if (blog.to_stderr) {
		n = snprintf(out, sizeof(out), "cli-sandbox-init: blocked: %s\n", line);
		if (n > 0 && (size_t)n < sizeof(out))
			cs_write_line(out, (size_t)n);  /* PID 1's own, never-blocking stderr */
	}
}

static void on_event(const struct nflog_event *ev, void *ctx)
{
	char line[BLOCKED_LINE_MAX];

	(void)ctx;
	/* Only what a process sent: the kernel's own packets (IPv6 neighbour
	 * discovery and MLD at interface start) are refused too, but they are
	 * nobody's attempt and would only be noise. */
	if (!ev->has_uid)
		return;
	if (blocked_lines_add(&blog.lines, ev, cs_now_ms(), time(NULL), line))
		emit(line);
}

/* The supervisor's handler: drains a bounded number of datagrams. */
static int on_ready(void *ctx)
{
	static uint8_t buf[16 * 1024] __attribute__((aligned(8)));  /* a logged packet: a few hundred bytes */
	int fd = mnl_socket_get_fd(blog.nl);

	(void)ctx;
	for (int i = 0; i < DATAGRAMS_PER_WAKEUP; i++) {
		ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);

		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			return 0;
		if (n < 0 && errno == ENOBUFS) {
			int64_t now = cs_now_ms();

			blog.lost++;
			if (!blog.lost_warned_ms || now - blog.lost_warned_ms >= LOST_WARN_MS) {
				cs_warn("the block log fell behind: the kernel dropped log messages (%llu times so far); the firewall is unaffected",
					(unsigned long long)blog.lost);
				blog.lost_warned_ms = now;
			}
			continue;
		}
		if (n < 0) {
			cs_warn("reading the block log failed (%s)", strerror(errno));
			return -1;
		}
		if (n == 0)
			return 0;
		nflog_parse(buf, (size_t)n, on_event, NULL);
	}
	return 0;
}

/* The file the command may read but not write or replace: a root-owned
 * directory nobody else may write, a fresh root-owned 0644 file, opened
 * once, before the command exists, without following a symlink; PID 1
 * keeps the descriptor and never opens the path again. */
static int open_file(void)
{
	struct stat st;
	int dir, fd;

	if (mkdir(BLOCK_LOG_DIR, 0755) != 0 && errno != EEXIST)
		return cs_warn("the block log has no file: cannot create " BLOCK_LOG_DIR " (%s); lines go to stderr only", strerror(errno)), -1;
	dir = open(BLOCK_LOG_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dir < 0)
		return cs_warn("the block log has no file: cannot open " BLOCK_LOG_DIR " (%s); lines go to stderr only", strerror(errno)), -1;
	if (fstat(dir, &st) != 0 || st.st_uid != 0 || (st.st_mode & 022)) {
		close(dir);
		return cs_warn("the block log has no file: " BLOCK_LOG_DIR " is not a directory that only root may write; lines go to stderr only"), -1;
	}
	if (unlinkat(dir, BLOCK_LOG_NAME, 0) != 0 && errno != ENOENT) {
		close(dir);
		return cs_warn("the block log has no file: cannot replace " BLOCK_LOG_PATH " (%s); lines go to stderr only", strerror(errno)), -1;
	}
	fd = openat(dir, BLOCK_LOG_NAME, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);
	close(dir);
	if (fd < 0 || fchmod(fd, 0644) != 0) {
		if (fd >= 0)
			close(fd);
		return cs_warn("the block log has no file: cannot create " BLOCK_LOG_PATH " (%s); lines go to stderr only", strerror(errno)), -1;
	}
	return fd;
}

int block_log_open(const struct pipeline *pl)
{
	struct cs_error err = { 0 };

	if (!pl->pid1 || !pl->policy.firewall)
		return 0;  /* nobody would read it / nothing refuses */
	blog.nl = nflog_open(NF_LOG_GROUP, NF_LOG_SNAPLEN, &err);
	if (!blog.nl) {
		cs_warn("no block log: %s; the firewall is the same, its refusals are just not reported", err.msg);
		return 0;
	}
	blocked_lines_init(&blog.lines);
	/* A terminal is the command's screen: lines there would tear a TUI
	 * apart, so they go to the file only (docker logs of a -t run would
	 * show them mixed into the command's output anyway). */
	blog.to_stderr = !isatty(STDERR_FILENO);
	blog.file = open_file();
	if (blog.file < 0 && !blog.to_stderr) {
		cs_warn("no block log: no file, and stderr is a terminal; the firewall is the same, its refusals are just not reported");
		mnl_socket_close(blog.nl);
		blog.nl = NULL;
		return 0;
	}
	if (blog.file >= 0)
		file_header("started at");
	supervisor_watch(mnl_socket_get_fd(blog.nl), on_ready, NULL);
	cs_info("block log: refused egress is reported %s%s (NFLOG group %d)",
		blog.file >= 0 ? "in " BLOCK_LOG_PATH : "",
		blog.to_stderr ? (blog.file >= 0 ? " and on stderr" : "on stderr") : "", NF_LOG_GROUP);
	return 0;
}
