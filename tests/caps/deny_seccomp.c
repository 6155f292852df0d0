/* deny_seccomp COMMAND [ARG...]: runs COMMAND under a seccomp filter that
 * refuses seccomp(2) and prctl(PR_SET_SECCOMP) with EPERM, as a runtime's
 * policy might, so a test can watch the init fail closed when it cannot
 * install its own filter. */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);

	if (argc < 2 || !ctx) {
		fputs("usage: deny_seccomp COMMAND [ARG...]\n", stderr);
		return 2;
	}
	if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(seccomp), 0) != 0 ||
	    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(prctl), 1,
			     SCMP_A0(SCMP_CMP_EQ, PR_SET_SECCOMP, 0)) != 0 ||
	    seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0) != 0 ||
	    seccomp_load(ctx) != 0) {
		perror("deny_seccomp: loading the filter");
		return 2;
	}
	execvp(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}
