/* The seccomp filter that binds PID 1 and the command: see sandbox_filter.h
 * and docs/privileges.md for what it denies and why.
 *
 * The programs are not built here: caps/sandbox_filter_gen ran the
 * libseccomp rules of caps/sandbox_rules.c at build time and wrote them
 * into sandbox_filter_bpf.h, so an install is one seccomp(2) call, the
 * kernel's load alone (libseccomp at run time probed the kernel with about
 * nine seccomp(2) calls and built its rule tree first, in every process
 * that installs the filter: 0.16 ms instead of 0.05). */
#include "caps/sandbox_filter.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "caps/sandbox_filter_bpf.h"

/* The generator ran on the build machine, for its native architecture:
 * where this compiler targets another one (a cross or -m32 build that got
 * past CMake), stop the build rather than embed a filter that would kill
 * every system call of the init.  Architectures not listed are not
 * checked. */
#if defined(__x86_64__) && !defined(__ILP32__)
#define EXPECTED_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__i386__)
#define EXPECTED_AUDIT_ARCH AUDIT_ARCH_I386
#elif defined(__aarch64__) && !defined(__AARCH64EB__) && !defined(__ILP32__)
#define EXPECTED_AUDIT_ARCH AUDIT_ARCH_AARCH64
#elif defined(__riscv) && __riscv_xlen == 64
#define EXPECTED_AUDIT_ARCH AUDIT_ARCH_RISCV64
#elif defined(__powerpc64__) && defined(__LITTLE_ENDIAN__)
#define EXPECTED_AUDIT_ARCH AUDIT_ARCH_PPC64LE
#elif defined(__s390x__)
#define EXPECTED_AUDIT_ARCH AUDIT_ARCH_S390X
#endif
#ifdef EXPECTED_AUDIT_ARCH
_Static_assert(SANDBOX_FILTER_AUDIT_ARCH == EXPECTED_AUDIT_ARCH,
	       "sandbox_filter_bpf.h was generated for another architecture than this compiler targets");
#endif

size_t sandbox_filter_program(bool allow_userns, const struct sock_filter **insns)
{
	if (allow_userns) {
		*insns = sandbox_filter_allow_userns;
		return sizeof(sandbox_filter_allow_userns) / sizeof(sandbox_filter_allow_userns[0]);
	}
	*insns = sandbox_filter_deny_userns;
	return sizeof(sandbox_filter_deny_userns) / sizeof(sandbox_filter_deny_userns[0]);
}

int sandbox_filter_install(bool allow_userns, struct cs_error *err)
{
	const struct sock_filter *insns;
	struct sock_fprog prog;
	long rc;

	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0 && errno == EINVAL) {
		cs_warn("THIS KERNEL HAS NO SECCOMP: the command runs WITHOUT the sandbox's system-call filter "
			"(AF_VSOCK sockets and user namespaces stay available to it); use a kernel with CONFIG_SECCOMP_FILTER");
		return 0;
	}
	prog.len = (unsigned short)sandbox_filter_program(allow_userns, &insns);
	prog.filter = (struct sock_filter *)insns;  /* the kernel copies it and never writes */
	/* The drop has set it already; libseccomp's load set it too, and an
	 * unprivileged filter install needs it. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		rc = -1;
	else {
		errno = ENOSYS;
		rc = -1;
#ifdef SYS_seccomp
		rc = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
#endif
		/* Only a kernel older than seccomp(2) (3.17), or a policy that
		 * answers as one, gets the older interface to the same filter. */
		if (rc != 0 && errno == ENOSYS)
			rc = prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
	}
	if (rc != 0)
		return cs_fail(err, CS_EXIT_OSERR, "installing the seccomp filter failed (%s); the command is not started, "
			       "check for a runtime seccomp or LSM policy that blocks seccomp(2) or prctl(PR_SET_SECCOMP)",
			       strerror(errno));
	return 0;
}
