#include "entrypoint/userns_probe.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#define PROBE_TIMEOUT_MS 2000

/* The steps, in bwrap's order for codex (--unshare-user --unshare-pid
 * --unshare-ipc --unshare-net, then --tmpfs, --ro-bind / /, --remount-ro);
 * /proc is left out because codex retries without it (--no-proc). */
static const char *try_sandbox(char *why, size_t len)
{
	uid_t uid = getuid();
	gid_t gid = getgid();
	struct statvfs root;
	unsigned long locked = 0;
	char map[64];
	pid_t pid;
	int st;

#define FAIL(step) do { snprintf(why, len, "%s: %s", step, strerror(errno)); return why; } while (0)
	/* setuid made this process non-dumpable, so /proc/self/uid_map would
	 * be root's; bwrap re-enables it for the same reason.  This child
	 * runs nothing but the probe and exits. */
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) != 0)
		FAIL("prctl(PR_SET_DUMPABLE)");
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC) != 0)
		FAIL("unshare(user+mount+pid+net+ipc)");
	{
		static const char *const files[] = { "/proc/self/setgroups", "/proc/self/uid_map", "/proc/self/gid_map" };

		for (int i = 0; i < 3; i++) {
			int fd = open(files[i], O_WRONLY | O_CLOEXEC);
			ssize_t n;

			if (i == 0)
				snprintf(map, sizeof(map), "deny");
			else
				snprintf(map, sizeof(map), "%u %u 1\n", i == 1 ? (unsigned)uid : (unsigned)gid,
					 i == 1 ? (unsigned)uid : (unsigned)gid);
			if (fd < 0)
				FAIL(files[i]);
			n = write(fd, map, strlen(map));
			close(fd);
			if (n != (ssize_t)strlen(map))
				FAIL(files[i]);
		}
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		FAIL("mount(/, private)");
	if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,mode=0700") != 0)
		FAIL("mount(tmpfs)");
	if (mkdir("/tmp/r", 0700) != 0)
		FAIL("mkdir in the tmpfs");
	if (mount("/", "/tmp/r", NULL, MS_BIND | MS_REC, NULL) != 0)
		FAIL("mount(bind /)");
	/* A remount inside a user namespace must keep the flags the outer
	 * mount locked (nosuid, nodev, noexec, atime), as bwrap does. */
	if (statvfs("/tmp/r", &root) != 0)
		FAIL("statvfs");
	if (root.f_flag & ST_NOSUID)
		locked |= MS_NOSUID;
	if (root.f_flag & ST_NODEV)
		locked |= MS_NODEV;
	if (root.f_flag & ST_NOEXEC)
		locked |= MS_NOEXEC;
	if (root.f_flag & ST_NOATIME)
		locked |= MS_NOATIME;
	if (root.f_flag & ST_NODIRATIME)
		locked |= MS_NODIRATIME;
	if (root.f_flag & ST_RELATIME)
		locked |= MS_RELATIME;
	if (mount(NULL, "/tmp/r", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | locked, NULL) != 0)
		FAIL("mount(remount read-only)");
	/* The new PID namespace takes effect for children: its first one is
	 * PID 1 there, as codex's sandboxed command is (--as-pid-1). */
	pid = fork();
	if (pid < 0)
		FAIL("fork into the pid namespace");
	if (pid == 0)
		_exit(getpid() == 1 ? 0 : 1);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		snprintf(why, len, "the first process of the new pid namespace is not PID 1");
		return why;
	}
#undef FAIL
	return NULL;
}

void userns_probe_run(struct userns_probe *out)
{
	int fds[2];
	pid_t child;
	struct pollfd pfd;
	ssize_t n = 0;
	int st;

	out->ok = false;
	if (pipe2(fds, O_CLOEXEC) != 0) {
		snprintf(out->evidence, sizeof(out->evidence), "pipe: %s", strerror(errno));
		return;
	}
	child = fork();
	if (child < 0) {
		snprintf(out->evidence, sizeof(out->evidence), "fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return;
	}
	if (child == 0) {
		char why[sizeof(out->evidence)] = "ok";
		const char *failed;

		close(fds[0]);
		failed = try_sandbox(why, sizeof(why));
		if (write(fds[1], failed ? failed : "ok", strlen(failed ? failed : "ok")) < 0)
			_exit(2);
		_exit(failed ? 1 : 0);
	}
	close(fds[1]);
	pfd = (struct pollfd){ .fd = fds[0], .events = POLLIN };
	if (poll(&pfd, 1, PROBE_TIMEOUT_MS) == 1)
		n = read(fds[0], out->evidence, sizeof(out->evidence) - 1);
	close(fds[0]);
	out->evidence[n > 0 ? n : 0] = '\0';
	if (n <= 0) {
		kill(child, SIGKILL);
		snprintf(out->evidence, sizeof(out->evidence), "the probe gave no answer within %d ms", PROBE_TIMEOUT_MS);
	}
	while (waitpid(child, &st, 0) < 0 && errno == EINTR)
		;
	out->ok = n > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 && strcmp(out->evidence, "ok") == 0;
	if (out->ok)
		snprintf(out->evidence, sizeof(out->evidence),
			 "user+mount+pid+net+ipc namespaces, id maps, tmpfs, read-only bind of / all worked");
}
