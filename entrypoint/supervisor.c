#include "entrypoint/supervisor.h"

#include "base/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/resident.h"
#include "caps/drop.h"
#include "caps/sandbox_filter.h"
#include "entrypoint/command.h"
#include "entrypoint/oom.h"

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
static void restore_signals(void)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };

	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaction(forwarded[i], &dfl, NULL);
	sigaction(SIGTTIN, &dfl, NULL);
	sigaction(SIGTTOU, &dfl, NULL);
	sigaction(SIGCHLD, &dfl, NULL);
	sigprocmask(SIG_SETMASK, &original_mask, NULL);
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
			deadline = cs_now_ms() + GRACE_MS;
			if (!none_left) {
				signal_leftovers(SIGTERM);
				signal_leftovers(SIGCONT);  /* a stopped job must see its SIGTERM */
			}
		}
		if (main_done && none_left)
			break;
		if (phase != RUNNING && cs_now_ms() >= deadline) {
			if (phase == KILLING) {
				cs_warn("processes survived SIGKILL for %d ms; exiting, the kernel ends them with the namespace", KILL_WAIT_MS);
				break;
			}
			phase = KILLING;
			deadline = cs_now_ms() + KILL_WAIT_MS;
			signal_leftovers(SIGKILL);
		}
		if (phase != RUNNING) {
			long long left = deadline - cs_now_ms();

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

/* PID 1's end of the start pipe: one byte once PID 1 has shed its
 * privileges and installed its filter, EOF if it could not. */
static int go_fd = -1;

pid_t supervisor_fork(struct cs_error *err)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, dfl = { .sa_handler = SIG_DFL };
	int go[2];
	pid_t child;

	if (!prepared)
		supervisor_prepare_signals();
	if (pipe2(go, O_CLOEXEC) != 0)
		return cs_fail(err, CS_EXIT_OSERR, "cannot create the init's start pipe (%s); the command is not started", strerror(errno));
	/* Background terminal access must never stop the init (nor the child's
	 * tcsetpgrp); SIGCHLD must not be inherited as ignored, or the kernel
	 * would reap the command's status away from us. */
	sigaction(SIGTTIN, &ign, NULL);
	sigaction(SIGTTOU, &ign, NULL);
	sigaction(SIGCHLD, &dfl, NULL);
	fflush(NULL);  /* nothing buffered may be written twice */
	child = fork();
	if (child < 0) {
		close(go[0]);
		close(go[1]);
		return cs_fail(err, CS_EXIT_OSERR, "cannot fork the command (%s); the command is not started", strerror(errno));
	}
	if (child == 0) {
		char byte;
		ssize_t n;

		close(go[1]);
		(void)setpgid(0, 0);  /* the parent does it too, whoever runs first */
		take_terminal();
		/* PID 1 drops first: the child goes on (its own drop, filter,
		 * exec) only after PID 1 shed its privileges, and exits at once,
		 * silently, when PID 1 could not (PID 1 says why).  So there is
		 * one error line whichever side fails. */
		do
			n = read(go[0], &byte, 1);
		while (n < 0 && errno == EINTR);
		if (n != 1)
			_exit(CS_EXIT_OSERR);
		close(go[0]);
		oom_pin_command();  /* before its drop, while it may set its floor */
		return 0;
	}
	close(go[0]);
	go_fd = go[1];
	/* Also here, so a signal forwarded before the child ran finds its group. */
	(void)setpgid(child, child);
	return child;
}

/* PID 1's own identity: the user's uid, so that it may signal the command
 * and whatever the command leaves behind, but a gid the command does not
 * have and no supplementary group.  prlimit() needs the caller's uid and
 * gid to match all of the target's, so the command cannot change PID 1's
 * limits (a lowered RLIMIT_CPU let the kernel kill it); the non-dumpable
 * flag already refuses ptrace and /proc/1/{mem,environ,fd}.  The gid is
 * nogroup's, 65534, mapped in every usual user namespace, or the next
 * lower one the user does not have. */
static void own_identity(const struct cs_user *user, struct cs_user *sup)
{
	gid_t g = 65534;

	memset(sup, 0, sizeof(*sup));
	sup->uid = user->uid;
	snprintf(sup->home, sizeof(sup->home), "/");
	for (bool taken = true; taken && g > 1; ) {
		taken = g == user->gid;
		for (size_t i = 0; i < user->n_groups && !taken; i++)
			taken = user->groups[i] == g;
		if (taken)
			g--;
	}
	sup->gid = g;
}

int supervisor_run(pid_t child, const struct cs_user *user, bool allow_userns)
{
	struct cs_error err;
	struct cs_user sup;
	struct drop_result dropped;
	sigset_t set;
	int sfd, status;

	/* First, while PID 1 may still open the terminal: its own lines go out
	 * through a descriptor that never blocks (base/status.h), so a command
	 * that stops the terminal or leaves a pipe full cannot stall it. */
	cs_output_nonblocking();
	own_identity(user, &sup);
	oom_guard_pid1();  /* before the drop: the shield needs CAP_SYS_RESOURCE */
	/* Unprivileged from the start (nothing to switch): PID 1 keeps the
	 * identity it was given, and only the flags and the filter apply. */
	if (privileges_none()) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
			cs_fail(&err, CS_EXIT_OSERR, "PID 1 cannot set no_new_privs or clear its dumpable flag (%s); the command is not started", strerror(errno));
			goto abort;
		}
		sup.uid = getuid();
		sup.gid = getgid();
	} else if (privileges_drop(&sup, &dropped, &err)) {
		struct cs_error why = err;

		cs_fail(&err, why.status, "PID 1 (uid %u, gid %u) could not shed its privileges: %s",
			(unsigned)sup.uid, (unsigned)sup.gid, why.msg);
		goto abort;
	}
	if (sandbox_filter_install(allow_userns, &err)) {
		struct cs_error why = err;

		cs_fail(&err, why.status, "PID 1: %s", why.msg);
		goto abort;
	}
	supervised_set(&set);
	sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0) {
		cs_fail(&err, CS_EXIT_OSERR, "cannot create the init's signalfd (%s); the command is not started", strerror(errno));
		goto abort;
	}
	/* The command's process may go on now.  If it is gone already (killed
	 * from outside), the write fails with EPIPE and the loop reaps it. */
	sigaction(SIGPIPE, &(struct sigaction){ .sa_handler = SIG_IGN }, NULL);
	if (write(go_fd, "", 1) != 1 && errno != EPIPE)
		cs_warn("cannot release the command's process (%s); it stops without running the command", strerror(errno));
	close(go_fd);
	go_fd = -1;
	resident_shrink();  /* from here on PID 1 only supervises */
	status = supervise(sfd, child);
	oom_report(status);
	return status;
abort:
	/* The child waits for our byte: closing the pipe without one makes it
	 * exit (71) before it does anything. */
	close(go_fd);
	go_fd = -1;
	while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
		;
	return cs_print_error(&err);
}

int supervisor_child_exec(char *const argv[], char *const envp[], struct cs_error *err)
{
	restore_signals();
	return command_exec(argv, envp, err);
}
