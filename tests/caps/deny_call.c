/* deny_call NAME ERRNO [ARG0] -- COMMAND [ARG...]: runs COMMAND under a
 * seccomp filter that answers the system call NAME (with first argument
 * ARG0, when given) with ERRNO, without running it; ERRNO 0 fakes a success
 * that does nothing.  The fault injections of issue 23: seccomp(2) that
 * "succeeds" without installing, prctl(PR_GET_SECCOMP) failing with EINVAL,
 * sendmsg of the firewall's batch failing with ENOBUFS.  Root loads the
 * filter without setting no_new_privs (the init under test sets it). */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int sep = 1, nr, rc;
	long errno_value;
	char *end;

	while (sep < argc && strcmp(argv[sep], "--") != 0)
		sep++;
	if (!ctx || (sep != 3 && sep != 4) || sep + 1 >= argc) {
		fputs("usage: deny_call NAME ERRNO [ARG0] -- COMMAND [ARG...]\n", stderr);
		return 2;
	}
	nr = seccomp_syscall_resolve_name(argv[1]);
	errno_value = strtol(argv[2], &end, 0);
	if (nr == __NR_SCMP_ERROR || *end || errno_value < 0 || errno_value > 4095) {
		fprintf(stderr, "deny_call: no system call '%s' or a bad errno '%s'\n", argv[1], argv[2]);
		return 2;
	}
	if (sep == 4) {
		unsigned long a0 = strtoul(argv[3], &end, 0);

		rc = *end ? -EINVAL
			  : seccomp_rule_add(ctx, SCMP_ACT_ERRNO((unsigned)errno_value), nr, 1,
					     SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)a0, 0));
	} else {
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO((unsigned)errno_value), nr, 0);
	}
	if (rc != 0 || seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0) != 0 || seccomp_load(ctx) != 0) {
		fprintf(stderr, "deny_call: loading the filter failed (%s)\n", strerror(rc < 0 ? -rc : EINVAL));
		return 2;
	}
	seccomp_release(ctx);
	execvp(argv[sep + 1], argv + sep + 1);
	perror(argv[sep + 1]);
	return 127;
}
