/* caps_last_cap() (issue 11, finding 6): only EINVAL ends the capability
 * list.  A seccomp filter in a child makes PR_CAPBSET_READ fail with EPERM
 * from capability 5 on, as a runtime's policy might; the old probe took that
 * for the end of the list and reported 4, so the drop checked only
 * capabilities 0-4 of the bounding set.  The probe runs once per process.
 * No privileges needed. */
#include <errno.h>
#include <linux/capability.h>
#include <seccomp.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "caps/verify.h"
#include "check.h"

/* In a child: the value and errno caps_last_cap() gives under the filter. */
static int under_filter(unsigned long from, int refusal, int *got, int *got_errno)
{
	int fds[2], st, res[2] = { 0, 0 };
	pid_t pid;

	if (pipe(fds) != 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);

		close(fds[0]);
		if (!ctx || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(refusal), SCMP_SYS(prctl), 2,
				     SCMP_A0(SCMP_CMP_EQ, PR_CAPBSET_READ, 0), SCMP_A1(SCMP_CMP_GE, from, 0)) != 0 ||
		    seccomp_load(ctx) != 0)
			_exit(2);
		res[0] = caps_last_cap();
		res[1] = errno;
		_exit(write(fds[1], res, sizeof(res)) == (ssize_t)sizeof(res) ? 0 : 3);
	}
	close(fds[1]);
	if (pid < 0 || read(fds[0], res, sizeof(res)) != (ssize_t)sizeof(res)) {
		close(fds[0]);
		return -1;
	}
	close(fds[0]);
	waitpid(pid, &st, 0);
	*got = res[0];
	*got_errno = res[1];
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* The kernel's own figure, where /proc is mounted; -1 otherwise. */
static int kernel_last_cap(void)
{
	FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "r");
	int v = -1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

int main(void)
{
	int last, e, probed;

	/* The filtered children first: each is forked before this process has
	 * probed, so each probes for itself, under its filter. */
	CHECK(under_filter(5, EPERM, &last, &e) == 0, "the filtered child ran");
	CHECK(last == -1 && e == EPERM, "EPERM from capability 5 is an error, not the end (got %d, errno %d)", last, e);
	CHECK(under_filter(0, EPERM, &last, &e) == 0, "the filtered child ran");
	CHECK(last == -1 && e == EPERM, "EPERM on capability 0 is an error (got %d, errno %d)", last, e);
	/* The bisection lands on the boundary wherever it is. */
	for (unsigned long from = 1; from < 64; from += 9) {
		CHECK(under_filter(from, EINVAL, &last, &e) == 0, "the filtered child ran");
		CHECK(last == (int)from - 1 || (last == kernel_last_cap() && (int)from > last),
		      "EINVAL from capability %lu: the list ends at %lu (got %d)", from, from - 1, last);
	}
	probed = caps_last_cap();
	CHECK(probed >= CAP_SETPCAP, "without a filter the list reaches CAP_SETPCAP (%d)", probed);
	CHECK(kernel_last_cap() < 0 || probed == kernel_last_cap(),
	      "the probe agrees with /proc/sys/kernel/cap_last_cap (%d, %d)", probed, kernel_last_cap());
	/* Once probed, the answer is kept: a child that can read no capability
	 * at all still gets it, because it makes no PR_CAPBSET_READ call. */
	CHECK(under_filter(0, EPERM, &last, &e) == 0, "the filtered child ran");
	CHECK(last == probed, "the probe runs once per process: a later call is answered from the first (got %d, want %d)", last, probed);
	return check_done("test_last_cap");
}
