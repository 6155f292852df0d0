#include "hostctl/spawn.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"

extern char **environ;

static int spawn_into(char *const argv[], char *out, size_t len, int timeout_ms, bool with_stderr)
{
	posix_spawn_file_actions_t fa;
	int pipefd[2], status = 0;
	size_t used = 0;
	pid_t pid;
	bool done = false;
	long long deadline;

	out[0] = '\0';
	if (pipe2(pipefd, O_CLOEXEC) != 0)
		return -1;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDOUT_FILENO);
	if (with_stderr)
		posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDERR_FILENO);
	else
		posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		close(pipefd[0]);
		close(pipefd[1]);
		return -1;
	}
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	deadline = cs_now_ms() + timeout_ms;
	while (!done) {
		struct pollfd p = { .fd = pipefd[0], .events = POLLIN };
		long long left = deadline - cs_now_ms();
		char buf[4096];
		ssize_t n;

		if (left <= 0 || poll(&p, 1, (int)left) <= 0)
			break;
		n = read(pipefd[0], buf, sizeof(buf));
		if (n <= 0) {
			done = true;
			break;
		}
		if (used < len - 1) {
			size_t take = (size_t)n < len - 1 - used ? (size_t)n : len - 1 - used;
			memcpy(out + used, buf, take);
			used += take;
		}
	}
	close(pipefd[0]);
	if (!done)
		kill(pid, SIGKILL);
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	out[used] = '\0';
	while (used > 0 && (out[used - 1] == '\n' || out[used - 1] == '\r'))
		out[--used] = '\0';
	if (!done || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

int spawn_capture(char *const argv[], char *out, size_t len, int timeout_ms)
{
	return spawn_into(argv, out, len, timeout_ms, false);
}

int spawn_capture_all(char *const argv[], char *out, size_t len, int timeout_ms)
{
	return spawn_into(argv, out, len, timeout_ms, true);
}

int on_path(const char *name)
{
	const char *path = getenv("PATH");
	char buf[4096];

	if (!path)
		return 0;
	while (*path) {
		size_t n = strcspn(path, ":");
		if (n > 0 && snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, path, name) < (int)sizeof(buf) &&
		    access(buf, X_OK) == 0)
			return 1;
		path += n + (path[n] == ':');
	}
	return 0;
}
