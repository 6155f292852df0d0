/* A session's end and its guardian (hostctl/session.h). */
#include "hostctl/session.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "hostctl/broker_dir.h"
#include "hostctl/engine_cmd.h"

#define SESSION_LINES 32

int session_note(const char *priv, const char *key, const char *value)
{
	char path[4200];
	int fd, n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/session", priv);
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0 || !(f = fdopen(fd, "a"))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	n = fprintf(f, "%s=%s\n", key, value);
	return fclose(f) == 0 && n > 0 ? 0 : -1;
}

bool session_id_ok(const char *priv)
{
	const char *base = strrchr(priv, '/');

	return priv[0] == '/' && base &&
	       (strncmp(base + 1, "cli-sandbox-session.", 20) == 0 || strncmp(base + 1, "cli-sandbox-session-up.", 23) == 0) &&
	       !strstr(priv, "/../");
}

static void engine_quiet(const char *engine, const char *a, const char *b, const char *c)
{
	struct engine_cmd cmd;
	char out[4096];

	engine_cmd_init(&cmd, engine);
	engine_cmd_add(&cmd, a, b, c, (char *)NULL);
	engine_cmd_run(&cmd, out, sizeof(out));
}

/* network rm, retried: the engine may still be detaching a container just removed. */
static bool network_remove(const char *engine, const char *net)
{
	struct timespec pause = { 0, 300 * 1000 * 1000 };
	char out[4096];

	for (int i = 0; i < 5; i++) {
		struct engine_cmd cmd;

		engine_cmd_init(&cmd, engine);
		engine_cmd_add(&cmd, "network", "rm", net, (char *)NULL);
		if (engine_cmd_run(&cmd, out, sizeof(out)) == 0)
			return true;
		engine_cmd_init(&cmd, engine);
		engine_cmd_add(&cmd, "network", "inspect", net, (char *)NULL);
		if (engine_cmd_run(&cmd, out, sizeof(out)) != 0)
			return true; /* gone (or never made) */
		nanosleep(&pause, NULL);
	}
	fprintf(stderr, "cli-sandbox-ctl: error: session: the network %s is still in use: remove it with '%s network rm %s'\n", net,
		engine, net);
	return false;
}

static void secrets_remove(const char *dir)
{
	const char *base = strrchr(dir, '/');
	char path[4300];

	if (!base || strncmp(base + 1, "cli-sandbox-gateway.", 20) != 0)
		return;
	snprintf(path, sizeof(path), "%s/env", dir);
	unlink(path);
	rmdir(dir);
}

/* The run's credentials file (the runner's add_credentials), which a run with a session keeps
 * in the session's directory, so that an end by the guardian removes it too. */
static void credentials_remove(const char *priv)
{
	DIR *d = opendir(priv);
	struct dirent *e;
	char path[4400];

	if (!d)
		return;
	while ((e = readdir(d)))
		if (strncmp(e->d_name, "cli-sandbox-credentials.", 24) == 0) {
			snprintf(path, sizeof(path), "%s/%s/env", priv, e->d_name);
			unlink(path);
			snprintf(path, sizeof(path), "%s/%s", priv, e->d_name);
			rmdir(path);
		}
	closedir(d);
}

int session_end(const char *priv, char *const extra[], int nextra, bool with_recorded_first)
{
	char path[4200], lines[SESSION_LINES][4300], engine[64] = "";
	int n = 0, rc = 0;
	FILE *f;

	if (!session_id_ok(priv)) {
		fprintf(stderr, "cli-sandbox-ctl: error: session: '%s' is not a session's id: give the session= line of session start\n",
			priv);
		return 2;
	}
	snprintf(path, sizeof(path), "%s/session", priv);
	if (!(f = fopen(path, "re")))
		return rmdir(priv) == 0 || errno == ENOENT ? 0 : 1; /* ended already, or never begun */
	while (n < SESSION_LINES && fgets(lines[n], sizeof(lines[n]), f)) {
		lines[n][strcspn(lines[n], "\n")] = '\0';
		if (strncmp(lines[n], "engine=", 7) == 0)
			snprintf(engine, sizeof(engine), "%s", lines[n] + 7);
		n++;
	}
	fclose(f);
	/* The token first: from here on the broker refuses it, whatever else is slow. */
	for (int i = 0; i < n; i++)
		if (strncmp(lines[i], "token=", 6) == 0)
			for (int j = 0; j < n; j++)
				if (strncmp(lines[j], "dir=", 4) == 0 || strncmp(lines[j], "joined=", 7) == 0) {
					char tok[4400];
					snprintf(tok, sizeof(tok), "%s/tokens/%s", strchr(lines[j], '=') + 1, lines[i] + 6);
					unlink(tok);
				}
	if (*engine) {
		for (int i = 0; i < nextra; i++)
			engine_quiet(engine, "rm", "-f", extra[i]);
		for (int i = 0; with_recorded_first && i < n; i++)
			if (strncmp(lines[i], "first=", 6) == 0)
				engine_quiet(engine, "rm", "-f", lines[i] + 6);
		for (int i = 0; i < n; i++)
			if (strncmp(lines[i], "container=", 10) == 0)
				engine_quiet(engine, "rm", "-f", lines[i] + 10);
		/* the last made first: the broker's network, then the router's */
		for (int i = n - 1; i >= 0; i--)
			if (strncmp(lines[i], "network=", 8) == 0 && !network_remove(engine, lines[i] + 8))
				rc = 1;
	}
	for (int i = 0; i < n; i++)
		if (strncmp(lines[i], "secrets=", 8) == 0)
			secrets_remove(lines[i] + 8);
		else if (strncmp(lines[i], "dir=", 4) == 0)
			broker_dir_remove(lines[i] + 4);
	unlink(path);
	credentials_remove(priv);
	if (rmdir(priv) != 0 && errno != ENOENT) {
		fprintf(stderr, "cli-sandbox-ctl: error: session: cannot remove %s: check what is left in it\n", priv);
		rc = 1;
	}
	return rc;
}

static int pidfd_of(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

/* Until pid has ended: its pidfd becomes readable then (Linux 5.3); without
 * pidfd_open, kill(pid, 0) twice a second (a reused pid would only delay). */
static void wait_death(pid_t pid, int fd)
{
	struct timespec pause = { 0, 500 * 1000 * 1000 };

	if (fd >= 0) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		while (poll(&p, 1, -1) < 0 && errno == EINTR)
			;
		return;
	}
	while (kill(pid, 0) == 0 || errno == EPERM)
		nanosleep(&pause, NULL);
}

void session_guard(const char *priv, int runner_pid)
{
	pid_t start = getpid();
	int rfd = pidfd_of(runner_pid), sfd = pidfd_of(start), null;
	pid_t child;
	char id[4200];

	snprintf(id, sizeof(id), "%s", priv);
	fflush(NULL);
	child = fork();
	if (child != 0) {
		if (rfd >= 0)
			close(rfd);
		if (sfd >= 0)
			close(sfd);
		return;
	}
	/* Detached: its own session (no terminal's SIGHUP), deaf to HUP, INT and TERM, no fd
	 * of the runner's kept (its command substitution waits for stdout's end). */
	setsid();
	signal(SIGHUP, SIG_IGN), signal(SIGINT, SIG_IGN), signal(SIGTERM, SIG_IGN), signal(SIGPIPE, SIG_IGN);
	for (int fd = 0; fd < 1024; fd++)
		if (fd != rfd && fd != sfd)
			close(fd);
	null = open("/dev/null", O_RDWR);
	if (null == 0) {
		dup2(0, 1);
		dup2(0, 2);
	}
	wait_death(runner_pid, rfd);
	/* The start that made this session may still be running (the runner died during it):
	 * what it makes is recorded as it goes, so the end waits for it. */
	wait_death(start, sfd);
	session_end(id, NULL, 0, true);
	_exit(0);
}
