#include "entrypoint/supervisor.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/resident.h"
#include "entrypoint/command.h"

/* Signals the init passes on to the command.  What a terminal generates
 * (INT, QUIT, TSTP from ^C ^\ ^Z; WINCH on resize) goes straight to the
 * terminal's foreground group, which is the command's group once it took the
 * terminal; these arrive at the init only from outside (docker stop / kill,
 * the docker client's sig-proxy, a non-tty run).  SIGTTIN and SIGTTOU are not
 * forwarded: the terminal sends them to whoever touches it from the
 * background, so one aimed at the init concerns the init alone, and stopping
 * the command for it would be wrong; the init ignores both instead. */
static const int forwarded[] = {
	SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGWINCH, SIGCONT, SIGTSTP,
};

#define GRACE_MS 2000      /* leftovers get SIGTERM, then this long before SIGKILL */
#define KILL_WAIT_MS 1000  /* after SIGKILL, wait this long for the last reaps */

static sigset_t original_mask;
static bool prepared;

static struct {
	int fd;
	int (*on_ready)(void *ctx);
	void *ctx;
} watch = { .fd = -1 };

void supervisor_watch(int fd, int (*on_ready)(void *ctx), void *ctx)
{
	watch.fd = fd;
	watch.on_ready = on_ready;
	watch.ctx = ctx;
}

/* The watched descriptor had news: its handler runs (POLLERR too: a
 * netlink socket reports a lost message that way, and reading clears it),
 * and a problem with it only ends the watching, never the supervision. */
static void serve_watch(short revents)
{
	const char *why = "its reader gave up";

	if (revents & (POLLIN | POLLERR)) {
		if (watch.on_ready(watch.ctx) == 0)
			return;
	} else {
		why = revents & POLLNVAL ? "its descriptor is closed" : "its descriptor hung up";
	}
	cs_warn("the block log stops here (%s); supervision goes on", why);
	watch.fd = -1;
}

static void supervised_set(sigset_t *set)
{
	sigemptyset(set);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(set, forwarded[i]);
	sigaddset(set, SIGCHLD);
}

void supervisor_prepare_signals(void)
{
	sigset_t set;

	supervised_set(&set);
	/* Blocked, not handled: PID 1 of a pid namespace drops a signal whose
	 * action is the default, but a blocked one stays pending for the
	 * signalfd.  Nothing can fail here but a bad argument. */
	if (sigprocmask(SIG_BLOCK, &set, &original_mask) == 0)
		prepared = true;
}

/* Puts the child's group in the terminal's foreground, so an interactive
 * shell gets job control and reads the terminal without SIGTTIN.  SIGTTOU is
 * ignored here (inherited from the init): tcsetpgrp from what is still a
 * background group would otherwise stop us. */
static void take_terminal(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		if (!isatty(fd))
			continue;
		if (tcsetpgrp(fd, getpgrp()) != 0 && errno != ENOTTY && errno != ENXIO)
			cs_warn("cannot give the terminal to the command (%s); job control will not work in it", strerror(errno));
		return;
	}
}

/* The command starts with default dispositions for every signal the init
 * blocks, forwards or ignores, SIGCHLD included, whatever the init itself
 * inherited (a runtime or a non-interactive shell may hand it SIGINT
 * ignored, and the command must still die of a forwarded ^C), and with the
 * signal mask the init was started with.  Other dispositions pass through
 * exec unchanged, as they would without the init. */
static void run_child(char *const argv[], char *const envp[])
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	struct cs_error err;

	(void)setpgid(0, 0);  /* the parent does it too, whoever runs first */
	take_terminal();
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaction(forwarded[i], &dfl, NULL);
	sigaction(SIGTTIN, &dfl, NULL);
	sigaction(SIGTTOU, &dfl, NULL);
	sigaction(SIGCHLD, &dfl, NULL);
	sigprocmask(SIG_SETMASK, &original_mask, NULL);
	command_exec(argv, envp, &err);
	_exit(cs_print_error(&err));
}

static int exit_status(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return CS_EXIT_OSERR;
}

/* Reaps every child that has exited.  SIGCHLDs coalesce, so this drains with
 * WNOHANG and notices the main child among whatever it reaps.  Returns true
 * when no child is left at all. */
static bool reap(pid_t main_child, bool *main_done, int *status)
{
	for (;;) {
		int st;
		pid_t p = waitpid(-1, &st, WNOHANG);

		if (p > 0) {
			if (p == main_child) {
				*main_done = true;
				*status = exit_status(st);
			}
			continue;
		}
		if (p == 0)
			return false;
		if (errno == EINTR)
			continue;
		if (errno != ECHILD)
			cs_warn("waitpid failed (%s); retrying", strerror(errno));
		return errno == ECHILD;
	}
}

/* To the command's process group (a shell's pipeline included) while the
 * command leads it; to the command alone if it has moved elsewhere. */
static void forward(pid_t child, int sig)
{
	pid_t target = getpgid(child) == child ? -child : child;

	if (kill(target, sig) != 0 && errno != ESRCH)
		cs_warn("cannot forward signal %d to the command (%s)", sig, strerror(errno));
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* kill(-1, ...) from PID 1 reaches every other process of the namespace the
 * init may signal: all of them run as the user's uid after the drop. */
static void signal_leftovers(int sig)
{
	if (kill(-1, sig) != 0 && errno != ESRCH)
		cs_warn("cannot signal the remaining processes (%s)", strerror(errno));
}

static void drain(int sfd, pid_t child, bool main_done)
{
	struct signalfd_siginfo si;
	ssize_t n;

	while ((n = read(sfd, &si, sizeof(si))) == (ssize_t)sizeof(si))
		if (si.ssi_signo != SIGCHLD && !main_done)
			forward(child, (int)si.ssi_signo);
	if (n < 0 && errno != EAGAIN && errno != EINTR) {
		cs_warn("reading signals failed (%s); retrying", strerror(errno));
		nanosleep(&(struct timespec){ .tv_nsec = 100 * 1000 * 1000 }, NULL);
	}
}

/* The loop never gives up on a transient error: it warns and goes on. */
static int supervise(int sfd, pid_t child)
{
	enum { RUNNING, TERMINATING, KILLING } phase = RUNNING;
	bool main_done = false;
	int status = CS_EXIT_OSERR;
	long long deadline = 0;

	for (;;) {
		struct pollfd pfd[2] = { { .fd = sfd, .events = POLLIN }, { .fd = watch.fd, .events = POLLIN } };
		bool none_left = reap(child, &main_done, &status);
		int timeout = -1, r;

		if (main_done && phase == RUNNING) {
			phase = TERMINATING;
			deadline = now_ms() + GRACE_MS;
			if (!none_left) {
				signal_leftovers(SIGTERM);
				signal_leftovers(SIGCONT);  /* a stopped job must see its SIGTERM */
			}
		}
		if (main_done && none_left)
			break;
		if (phase != RUNNING && now_ms() >= deadline) {
			if (phase == KILLING) {
				cs_warn("processes survived SIGKILL for %d ms; exiting, the kernel ends them with the namespace", KILL_WAIT_MS);
				break;
			}
			phase = KILLING;
			deadline = now_ms() + KILL_WAIT_MS;
			signal_leftovers(SIGKILL);
		}
		if (phase != RUNNING) {
			long long left = deadline - now_ms();

			timeout = left < 0 ? 0 : (int)left;
		}
		/* a negative fd is ignored by poll: no watch, one descriptor */
		r = poll(pfd, 2, timeout);
		if (r < 0 && errno != EINTR) {
			cs_warn("poll on the signal descriptor failed (%s); retrying", strerror(errno));
			nanosleep(&(struct timespec){ .tv_nsec = 100 * 1000 * 1000 }, NULL);
		}
		if (r > 0 && pfd[0].revents)
			drain(sfd, child, main_done);
		if (r > 0 && watch.fd >= 0 && pfd[1].revents)
			serve_watch(pfd[1].revents);
	}
	return status;
}

int supervisor_run(char *const argv[], char *const envp[])
{
	struct cs_error err;
	struct sigaction ign = { .sa_handler = SIG_IGN }, dfl = { .sa_handler = SIG_DFL };
	sigset_t set;
	pid_t child;
	int sfd;

	if (!prepared)
		supervisor_prepare_signals();
	supervised_set(&set);
	sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0) {
		cs_fail(&err, CS_EXIT_OSERR, "cannot create the init's signalfd (%s); the command is not started", strerror(errno));
		return cs_print_error(&err);
	}
	/* Background terminal access must never stop the init; SIGCHLD must not
	 * be inherited as ignored, or the kernel would reap the command's status
	 * away from us. */
	sigaction(SIGTTIN, &ign, NULL);
	sigaction(SIGTTOU, &ign, NULL);
	sigaction(SIGCHLD, &dfl, NULL);
	child = fork();
	if (child < 0) {
		cs_fail(&err, CS_EXIT_OSERR, "cannot fork the command (%s); the command is not started", strerror(errno));
		return cs_print_error(&err);
	}
	if (child == 0)
		run_child(argv, envp);
	/* Also here, so a signal forwarded before the child ran finds its group.
	 * EACCES (the child already exec'd) and ESRCH are harmless. */
	(void)setpgid(child, child);
	resident_shrink();  /* from here on PID 1 only supervises */
	return supervise(sfd, child);
}
