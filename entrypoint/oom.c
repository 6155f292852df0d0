#include "entrypoint/oom.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/status.h"

#define OOM_SCORE_ADJ_MIN (-1000)

/* The memory cgroup's files as the container sees them: cgroup v2 first
 * (the container's own cgroup at /sys/fs/cgroup), then v1's memory
 * controller.  Both name the counter oom_kill: kills by the OOM killer in
 * this cgroup and below it. */
static const struct {
	const char *events, *limit;
} cgroup_files[] = {
	{ "/sys/fs/cgroup/memory.events", "/sys/fs/cgroup/memory.max" },
	{ "/sys/fs/cgroup/memory/memory.oom_control", "/sys/fs/cgroup/memory/memory.limit_in_bytes" },
};

static int events_fd = -1;          /* opened before the drop, kept (close-on-exec) */
static unsigned long long kills_before;
static char limit_text[48] = "unknown";

static int read_small(int fd, char *buf, size_t size)
{
	ssize_t n;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return -1;
	do
		n = read(fd, buf, size - 1);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

static int read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;

	if (fd < 0)
		return -1;
	rc = read_small(fd, buf, size);
	close(fd);
	return rc;
}

/* The "oom_kill N" line of memory.events or memory.oom_control. */
static int read_kills(int fd, unsigned long long *kills)
{
	char buf[512], *line, *next;

	if (read_small(fd, buf, sizeof(buf)))
		return -1;
	for (line = buf; *line; line = next) {
		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		if (strncmp(line, "oom_kill ", 9) == 0) {
			*kills = strtoull(line + 9, NULL, 10);
			return 0;
		}
	}
	return -1;
}

static void describe_limit(const char *path)
{
	char buf[64];
	unsigned long long bytes;
	char *end;

	if (read_file(path, buf, sizeof(buf)))
		return;
	bytes = strtoull(buf, &end, 10);
	/* "max" (v2), or v1's "unlimited", a page-rounded LLONG_MAX */
	if (end == buf || bytes >= (1ULL << 62))
		snprintf(limit_text, sizeof(limit_text), "no limit of its own");
	else
		snprintf(limit_text, sizeof(limit_text), "%llu MiB", bytes >> 20);
}

static int get_adj(int *value)
{
	char buf[16];

	if (read_file("/proc/self/oom_score_adj", buf, sizeof(buf)))
		return -1;
	*value = atoi(buf);
	return 0;
}

static int set_adj(int value)
{
	char buf[16];
	int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC), len;
	ssize_t n;

	if (fd < 0)
		return -1;
	len = snprintf(buf, sizeof(buf), "%d", value);
	n = write(fd, buf, (size_t)len);
	close(fd);
	return n == len ? 0 : -1;
}

void oom_guard_pid1(void)
{
	int adj, lo = OOM_SCORE_ADJ_MIN, hi, want = OOM_SCORE_ADJ_MIN;

	/* Without CAP_SYS_RESOURCE the kernel refuses (EACCES) any value below
	 * the floor the runtime set: PID 1 then goes as low as it may, which
	 * it finds by bisection (the floor is not readable), usually where it
	 * already is.  The command shares that floor, and the OOM killer's
	 * choice between equals falls on size, where PID 1 is the smallest. */
	if (get_adj(&hi))
		return;
	if (set_adj(OOM_SCORE_ADJ_MIN) != 0) {
		while (hi - lo > 1) {  /* set_adj(lo) fails, set_adj(hi) holds */
			int mid = lo + (hi - lo) / 2;

			if (set_adj(mid) == 0)
				hi = mid;
			else
				lo = mid;
		}
		want = hi;
		(void)set_adj(hi);
	}
	if (get_adj(&adj) || adj != want)
		cs_warn("PID 1 set oom_score_adj %d but reads back another value; the OOM killer may choose PID 1", want);
	for (size_t i = 0; i < sizeof(cgroup_files) / sizeof(cgroup_files[0]) && events_fd < 0; i++) {
		events_fd = open(cgroup_files[i].events, O_RDONLY | O_CLOEXEC);
		if (events_fd < 0)
			continue;
		if (read_kills(events_fd, &kills_before)) {
			close(events_fd);
			events_fd = -1;
			continue;
		}
		describe_limit(cgroup_files[i].limit);
	}
}

void oom_pin_command(void)
{
	int adj;

	/* The same value again: with CAP_SYS_RESOURCE the kernel records it
	 * as this process's floor, inherited by everything it forks. */
	if (get_adj(&adj) == 0)
		(void)set_adj(adj);
}

void oom_report(int status)
{
	unsigned long long kills;

	if (events_fd < 0 || read_kills(events_fd, &kills) || kills <= kills_before)
		return;
	if (status == 128 + 9) {
		struct cs_error err;

		cs_fail(&err, status, "the kernel's OOM killer killed the command (exit 137): the sandbox reached its memory limit (%s); "
			"give it more with cli-sandbox --memory SIZE (the engine's --memory)", limit_text);
		cs_print_error(&err);
	} else {
		cs_warn("the kernel's OOM killer killed %llu process(es) of the command: the sandbox reached its memory limit (%s); "
			"give it more with cli-sandbox --memory SIZE (the engine's --memory)", kills - kills_before, limit_text);
	}
}

const char *oom_describe(void)
{
	return "PID 1 sets its oom_score_adj to -1000 when CAP_SYS_RESOURCE is held (never the OOM killer's choice), "
	       "else to the lowest value it may; the command's floor is pinned at its start value; an OOM kill is read from the memory cgroup's oom_kill counter "
	       "and named in one line (exit 137)";
}
