/* deny_prctl OPTION ERRNO COMMAND [ARG...]: runs COMMAND under a seccomp
 * filter that fails prctl(OPTION, ...) with ERRNO, as a runtime's policy
 * might, so a test can watch the init's privilege drop fail closed at that
 * step.  Root loads the filter without setting no_new_privs (the drop under
 * test sets it). */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	char *end1, *end2;
	long option = argc > 3 ? strtol(argv[1], &end1, 0) : -1;
	long errno_value = argc > 3 ? strtol(argv[2], &end2, 0) : -1;

	if (argc < 4 || !ctx || *end1 || *end2 || option < 0 || errno_value < 0 || errno_value > 4095) {
		fputs("usage: deny_prctl OPTION ERRNO COMMAND [ARG...]\n", stderr);
		return 2;
	}
	if (seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0) != 0 ||
	    seccomp_rule_add(ctx, SCMP_ACT_ERRNO((unsigned)errno_value), SCMP_SYS(prctl), 1,
			     SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)option, 0)) != 0 ||
	    seccomp_load(ctx) != 0) {
		perror("deny_prctl: loading the filter");
		return 2;
	}
	seccomp_release(ctx);
	execvp(argv[3], argv + 3);
	perror(argv[3]);
	return 127;
}
