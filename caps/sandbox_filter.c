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
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
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

/* Evidence that this kernel has no seccomp at all, which no failing or
 * refused call can fake: its /proc/self/status is readable and complete
 * (it has the "Pid:" field every kernel prints), and has no "Seccomp:"
 * field, which every kernel built with CONFIG_SECCOMP prints (since 3.8).
 * An unreadable file is no evidence. */
static bool kernel_lacks_seccomp(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	bool pid = false, seccomp = false;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		pid = pid || strncmp(line, "Pid:", 4) == 0;
		seccomp = seccomp || strncmp(line, "Seccomp:", 8) == 0;
	}
	if (ferror(f))
		pid = false;
	fclose(f);
	return pid && !seccomp;
}

/* A call the filter must refuse, with the filter's own errno; a socket
 * made instead is closed, and the answer is false. */
static bool refused_socket(int family, int type, int protocol, int want, int *got)
{
	int fd = socket(family, type | SOCK_CLOEXEC, protocol);

	*got = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	return fd < 0 && *got == want;
}

/* A call that sets a setuid or setgid mode, refused with EPERM by the
 * filter only.  Both have no effect without the filter either:
 * fchmod(-1) says EBADF and openat of "" says ENOENT; so the probes prove
 * the rules of both families without touching a file. */
static bool refused_setid(bool open_family, int *got)
{
	long rc = open_family ? syscall(SYS_openat, -1, "", O_WRONLY | O_CREAT | O_CLOEXEC, S_ISGID | 0644)
			      : syscall(SYS_fchmod, -1, S_ISUID | 0755);

	*got = rc < 0 ? errno : 0;
	if (rc >= 0 && open_family)
		close((int)rc);
	return rc < 0 && *got == EPERM;
}

int sandbox_filter_verify(struct cs_error *err)
{
	long mode = prctl(PR_GET_SECCOMP, 0, 0, 0, 0);
	int got;

	if (mode != SECCOMP_MODE_FILTER)
		return cs_fail(err, CS_EXIT_OSERR,
			       "the seccomp filter is not in force after its install (prctl(PR_GET_SECCOMP) %s %s); "
			       "the command is not started, check for a runtime seccomp or LSM policy that fakes seccomp(2)",
			       mode < 0 ? "failed with" : "says mode", mode < 0 ? strerrorname_np(errno) : mode == 0 ? "0" : "1");
	/* The canaries: netlink's generic family is built into every kernel
	 * with networking, so only the filter refuses it (EPROTONOSUPPORT);
	 * AF_VSOCK is the family the filter exists for (EAFNOSUPPORT). */
	if (!refused_socket(AF_NETLINK, SOCK_RAW, NETLINK_GENERIC, EPROTONOSUPPORT, &got))
		return cs_fail(err, CS_EXIT_OSERR,
			       "the seccomp filter does not refuse socket(AF_NETLINK, NETLINK_GENERIC) (%s instead of EPROTONOSUPPORT): "
			       "it is not the one installed; the command is not started, check for a runtime policy that fakes seccomp(2)",
			       got ? strerrorname_np(got) : "a socket");
	if (!refused_socket(AF_VSOCK, SOCK_STREAM, 0, EAFNOSUPPORT, &got))
		return cs_fail(err, CS_EXIT_OSERR,
			       "the seccomp filter does not refuse socket(AF_VSOCK) (%s instead of EAFNOSUPPORT); "
			       "the command is not started, check for a runtime policy that fakes seccomp(2)",
			       got ? strerrorname_np(got) : "a socket");
	/* The setuid/setgid rules (issue 31), one probe per family. */
	if (!refused_setid(false, &got))
		return cs_fail(err, CS_EXIT_OSERR,
			       "the seccomp filter does not refuse fchmod(-1, 04755) (%s instead of EPERM): it is not the one installed; "
			       "the command is not started, check for a runtime policy that fakes seccomp(2)",
			       got ? strerrorname_np(got) : "success");
	if (!refused_setid(true, &got))
		return cs_fail(err, CS_EXIT_OSERR,
			       "the seccomp filter does not refuse openat(O_CREAT, 02644) (%s instead of EPERM): it is not the one installed; "
			       "the command is not started, check for a runtime policy that fakes seccomp(2)",
			       got ? strerrorname_np(got) : "a file");
	return 0;
}

/* The filter's mode before an install: 0 when one may be installed, 1 when
 * this kernel has no seccomp at all (proven), -1 with err otherwise. */
static int seccomp_available(struct cs_error *err)
{
	int e;

	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0)
		return 0;
	e = errno;
	if (e == EINVAL && kernel_lacks_seccomp())
		return 1;
	return cs_fail(err, CS_EXIT_OSERR,
		       "prctl(PR_GET_SECCOMP) failed with %s, yet this kernel has seccomp (or /proc/self/status cannot tell); "
		       "the command is not started, check for a runtime seccomp or LSM policy that refuses prctl; "
		       "qemu-user (an image of another architecture, through binfmt_misc) refuses every seccomp call: run on the image's own architecture",
		       strerrorname_np(e));
}

/* One seccomp(2) install (prctl(PR_SET_SECCOMP) where seccomp(2) is older
 * than the kernel); -1 with errno set. */
static long load(const struct sock_filter *insns, size_t n)
{
	struct sock_fprog prog = { .len = (unsigned short)n, .filter = (struct sock_filter *)insns };
	long rc;

	/* The drop has set it already; an unprivileged filter install needs it. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	errno = ENOSYS;
	rc = -1;
#ifdef SYS_seccomp
	rc = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
#endif
	/* Only a kernel older than seccomp(2) (3.17), or a policy that answers
	 * as one, gets the older interface to the same filter. */
	if (rc != 0 && errno == ENOSYS)
		rc = prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
	return rc;
}

int sandbox_filter_install(bool allow_userns, struct cs_error *err)
{
	const struct sock_filter *insns;
	size_t n;
	int avail = seccomp_available(err);

	if (avail < 0)
		return -1;
	if (avail > 0) {
		cs_warn("THIS KERNEL HAS NO SECCOMP (/proc/self/status has no Seccomp: field): the command runs WITHOUT the "
			"sandbox's system-call filter (AF_VSOCK sockets and user namespaces stay available to it); "
			"use a kernel with CONFIG_SECCOMP_FILTER");
		return 0;
	}
	n = sandbox_filter_program(allow_userns, &insns);
	if (load(insns, n) != 0)
		return cs_fail(err, CS_EXIT_OSERR, "installing the seccomp filter failed (%s); the command is not started, "
			       "check for a runtime seccomp or LSM policy that blocks seccomp(2) or prctl(PR_SET_SECCOMP)",
			       strerror(errno));
	/* Believe nothing that was not read back: a call that says 0 may have
	 * installed nothing. */
	return sandbox_filter_verify(err);
}

size_t resolver_filter_program(const struct sock_filter **insns)
{
	*insns = resolver_filter;
	return sizeof(resolver_filter) / sizeof(resolver_filter[0]);
}

int resolver_filter_install(struct cs_error *err)
{
	const struct sock_filter *insns;
	size_t n;
	int avail = seccomp_available(err), got;

	if (avail != 0)
		return avail < 0 ? -1 : 0;  /* no seccomp: the command's filter says so, loudly */
	n = resolver_filter_program(&insns);
	if (load(insns, n) != 0)
		return cs_fail(err, CS_EXIT_OSERR, "installing the resolver's seccomp filter failed (%s)", strerror(errno));
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) != SECCOMP_MODE_FILTER)
		return cs_fail(err, CS_EXIT_OSERR, "the resolver's seccomp filter is not in force after its install");
	/* The canary: a netlink protocol but ROUTE, which only the filter refuses. */
	if (!refused_socket(AF_NETLINK, SOCK_RAW, NETLINK_GENERIC, EPROTONOSUPPORT, &got))
		return cs_fail(err, CS_EXIT_OSERR, "the resolver's seccomp filter does not refuse socket(AF_NETLINK, NETLINK_GENERIC) (%s)",
			       got ? strerrorname_np(got) : "a socket");
	return 0;
}
