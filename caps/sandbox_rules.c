/* The seccomp filter's rules (see sandbox_rules.h, and sandbox_filter.h
 * for what they deny and why).  Built into the build-time generator and the
 * test that checks the embedded program, never into cli-sandbox-init. */
#include "caps/sandbox_rules.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <sched.h>
#include <seccomp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* Where clone(2) takes its flags: the first argument everywhere but s390,
 * where the first two are swapped. */
#if defined(__s390__) || defined(__s390x__)
#define CLONE_FLAGS_ARG 1
#else
#define CLONE_FLAGS_ARG 0
#endif

/* The kernel reads these arguments as int: compare the low 32 bits only, so
 * that garbage in the upper half of the register cannot slip past a rule. */
#define LOW32 0xffffffffull

/* The only address families the sandbox uses: local sockets, IPv4, IPv6
 * (what nftables filters) and netlink for the routing and interface
 * queries that glibc's getaddrinfo, getifaddrs and node make. */
static const int allowed_families[] = { AF_UNIX, AF_INET, AF_INET6, AF_NETLINK };
/* Everything above AF_NETLINK, the largest family allowed, is denied by one
 * comparison of the whole 64-bit argument, which also catches any value
 * with garbage in the upper half (glibc passes zero there); the few denied
 * values below it are compared on their low 32 bits, where the kernel reads
 * its int.  (A rule per family up to 64 made the filter cost 0.6 ms to
 * build; this one about a third of that.) */
#define FAMILY_MAX_ALLOWED AF_NETLINK

/* Netlink protocols left open: ROUTE (addresses, routes, interfaces:
 * getaddrinfo's AI_ADDRCONFIG, getifaddrs, node's os.networkInterfaces,
 * iproute2), SOCK_DIAG (ss) and KOBJECT_UEVENT (device events).  The others
 * (NETFILTER, XFRM, GENERIC, AUDIT, ...) reach kernel code the command never
 * needs; NETFILTER and XFRM would be its way to nf_tables and IPsec state
 * inside a user namespace of its own, where it holds CAP_NET_ADMIN. */
static const int allowed_netlink[] = { NETLINK_ROUTE, NETLINK_SOCK_DIAG, NETLINK_KOBJECT_UEVENT };
#define NETLINK_MAX_ALLOWED NETLINK_KOBJECT_UEVENT  /* the same scheme */

static bool listed(const int *list, size_t n, int v)
{
	for (size_t i = 0; i < n; i++)
		if (list[i] == v)
			return true;
	return false;
}

/* Denies the call for every value of allowed[] missing below max, and for
 * everything above max (first argument). */
static int deny_above_and_gaps(scmp_filter_ctx ctx, int call, int err, const int *allowed, size_t n_allowed,
			       int max)
{
	int rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(err), call, 1, SCMP_A0(SCMP_CMP_GT, (scmp_datum_t)max, 0));

	for (int f = 0; f < max && rc == 0; f++)
		if (!listed(allowed, n_allowed, f))
			rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(err), call, 1,
					      SCMP_A0(SCMP_CMP_MASKED_EQ, LOW32, (scmp_datum_t)f));
	return rc;
}

static int deny_families(scmp_filter_ctx ctx)
{
	size_t nf = sizeof(allowed_families) / sizeof(allowed_families[0]);
	size_t nn = sizeof(allowed_netlink) / sizeof(allowed_netlink[0]);
	int rc;

	rc = deny_above_and_gaps(ctx, SCMP_SYS(socket), EAFNOSUPPORT, allowed_families, nf, FAMILY_MAX_ALLOWED);
	if (rc == 0)
		rc = deny_above_and_gaps(ctx, SCMP_SYS(socketpair), EAFNOSUPPORT, allowed_families, nf, FAMILY_MAX_ALLOWED);
	/* netlink: the protocol is the third argument, judged for AF_NETLINK only */
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPROTONOSUPPORT), SCMP_SYS(socket), 2,
				      SCMP_A0(SCMP_CMP_MASKED_EQ, LOW32, AF_NETLINK),
				      SCMP_A2(SCMP_CMP_GT, (scmp_datum_t)NETLINK_MAX_ALLOWED, 0));
	for (int p = 0; p < NETLINK_MAX_ALLOWED && rc == 0; p++)
		if (!listed(allowed_netlink, nn, p))
			rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPROTONOSUPPORT), SCMP_SYS(socket), 2,
					      SCMP_A0(SCMP_CMP_MASKED_EQ, LOW32, AF_NETLINK),
					      SCMP_A2(SCMP_CMP_MASKED_EQ, LOW32, (scmp_datum_t)p));
	return rc;
}

/* User namespaces: clone and unshare with CLONE_NEWUSER get EPERM, as under
 * Docker's default profile.  clone3 passes its flags in a struct that a
 * filter cannot read, so it gets ENOSYS: glibc (pthread_create, posix_spawn),
 * Go and Rust then fall back to clone, which the rule above judges. */
static int deny_user_namespaces(scmp_filter_ctx ctx)
{
	int rc;

	rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
			      SCMP_CMP(CLONE_FLAGS_ARG, SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 1,
				      SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
	return rc;
}

/* Kernel interfaces with a record of privilege-escalation bugs that no CLI
 * uses, which Docker's and podman's default profiles deny as well; here
 * they stay denied where the runtime has no profile (Kubernetes
 * Unconfined).  io_uring gets ENOSYS, so libuv and others fall back to
 * plain system calls; the kernel keyring is not namespaced at all. */
static int deny_kernel_interfaces(scmp_filter_ctx ctx)
{
	static const struct { const char *name; int err; } calls[] = {
		{ "io_uring_setup", ENOSYS }, { "io_uring_enter", ENOSYS }, { "io_uring_register", ENOSYS },
		{ "userfaultfd", EPERM }, { "bpf", EPERM }, { "perf_event_open", EPERM },
		{ "keyctl", EPERM }, { "add_key", EPERM }, { "request_key", EPERM },
	};
	int rc = 0;

	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]) && rc == 0; i++) {
		int nr = seccomp_syscall_resolve_name(calls[i].name);

		if (nr == __NR_SCMP_ERROR)
			continue;  /* not a system call of this architecture */
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(calls[i].err), nr, 0);
	}
	return rc;
}

/* ---- No setuid or setgid bits -----------------------------------------
 * no_new_privs keeps the command from gaining privileges through a setuid
 * file, but not from making one: a file it leaves setuid (or setgid) in
 * the workspace or a state folder runs, for any local user on the host, as
 * the sandbox's uid (for a person, their own).  So every call that sets a
 * mode refuses one with S_ISUID or S_ISGID (EPERM, what the kernel says to
 * a chmod it refuses).  The kernel reads the mode as umode_t, so testing
 * the two bits (MASKED_EQ with each alone) ignores any garbage around them.
 * A setgid directory is refused too: the filter cannot tell a directory
 * from a file, and the bit is never needed in a workspace.
 *
 * open/openat judge the mode only when the call creates a file (O_CREAT,
 * or O_TMPFILE's own bit), exactly when the kernel reads it (WILL_CREATE in
 * fs/open.c): elsewhere the register holds whatever the caller left there
 * (Rust's std passes 0666 to every open, some callers pass their create
 * mode to every open), and refusing a plain open of an existing file on
 * that would break reads for nothing.  The other calls always use their
 * mode.  mkdir/mkdirat: Linux drops S_ISUID and S_ISGID from mkdir's mode
 * (the directory inherits S_ISGID from its parent only), so those rules
 * refuse what would not happen anyway; they keep the rule "no call with the
 * bits" simple to state and to test, and cost a few instructions.
 *
 * openat2 carries its mode inside struct open_how, behind a pointer the
 * filter cannot read, and stays allowed: codex's bundled bubblewrap opens its
 * bind sources with it and stops on ENOSYS ("Can't open source /: Function
 * not implemented", measured), which broke codex's own sandbox.  So a program
 * written to call openat2 with O_CREAT and a setid mode is the one way left
 * to such a bit (docs/privileges.md); libc's open, creat and fopen, and every
 * tool that uses them, are judged above.
 *
 * Other ABIs (i386, x32) are killed before any of this (the bad-architecture
 * action and libseccomp's x32 range check), so their chmod needs no rule. */
#define SETID_BITS_N 2
static const unsigned setid_bits[SETID_BITS_N] = { S_ISUID, S_ISGID };

/* O_TMPFILE is __O_TMPFILE | O_DIRECTORY; the kernel decides on __O_TMPFILE
 * alone, which glibc does not export. */
#define TMPFILE_BIT ((unsigned)O_TMPFILE & ~(unsigned)O_DIRECTORY)

/* System calls libseccomp may not know by name.  fchmodat2 (Linux 6.6)
 * arrived in libseccomp 2.5.5/2.6.0: upstream 2.5.4 (what Debian 12 names;
 * its 2.5.4-1+deb12u1 knows it) would leave the call unfiltered, and a
 * libc that calls fchmodat2 (glibc 2.39's fchmodat with flags) would set
 * the bits through it.  Since Linux 5.1 a new system call gets the same
 * number on every architecture (alpha, ia64 and mips add an offset of their
 * own), so the fallbacks hold for the architectures sandbox_filter.c knows,
 * x86_64 and aarch64 (the cross build) among them; anywhere else a name
 * libseccomp does not know fails the build rather than leave a hole. */
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__) || defined(__riscv) || \
	defined(__powerpc64__) || defined(__s390x__)
#define NR_FCHMODAT2_FALLBACK 452
#else
#define NR_FCHMODAT2_FALLBACK __NR_SCMP_ERROR
#endif

/* The call's number: libseccomp's, else the fallback; negative when the
 * architecture has no such call (libseccomp answers __NR_SCMP_ERROR for a
 * name it does not know, and a negative pseudo-number, e.g. chmod on
 * aarch64, for one the architecture lacks). */
static int call_nr(const char *name, int fallback)
{
	int nr = seccomp_syscall_resolve_name(name);

	return nr >= 0 ? nr : fallback;
}

static int deny_setid_modes(scmp_filter_ctx ctx)
{
	/* mode_arg: the mode's argument; flags_arg: open's flags, or -1 where
	 * the mode is always used.  chmod, open, creat, mkdir and mknod are
	 * absent on aarch64 and riscv64 (the *at calls only). */
	static const struct { const char *name; unsigned mode_arg; int flags_arg; int fallback; } calls[] = {
		{ "chmod", 1, -1, __NR_SCMP_ERROR }, { "fchmod", 1, -1, __NR_SCMP_ERROR },
		{ "fchmodat", 2, -1, __NR_SCMP_ERROR }, { "fchmodat2", 2, -1, NR_FCHMODAT2_FALLBACK },
		{ "creat", 1, -1, __NR_SCMP_ERROR }, { "mkdir", 1, -1, __NR_SCMP_ERROR },
		{ "mkdirat", 2, -1, __NR_SCMP_ERROR }, { "mknod", 1, -1, __NR_SCMP_ERROR },
		{ "mknodat", 2, -1, __NR_SCMP_ERROR }, { "open", 2, 1, __NR_SCMP_ERROR },
		{ "openat", 3, 2, __NR_SCMP_ERROR },
	};
	static const unsigned creating[] = { O_CREAT, TMPFILE_BIT };
	int rc = 0, nr;

	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]) && rc == 0; i++) {
		nr = call_nr(calls[i].name, calls[i].fallback);
		if (nr < 0) {
			if (strcmp(calls[i].name, "fchmodat2") == 0)
				return -ENOSYS;  /* an architecture without a known number: no hole */
			continue;  /* not a system call of this architecture */
		}
		for (size_t b = 0; b < SETID_BITS_N && rc == 0; b++) {
			struct scmp_arg_cmp mode = SCMP_CMP(calls[i].mode_arg, SCMP_CMP_MASKED_EQ, setid_bits[b], setid_bits[b]);

			if (calls[i].flags_arg < 0) {
				rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 1, mode);
				continue;
			}
			for (size_t c = 0; c < sizeof(creating) / sizeof(creating[0]) && rc == 0; c++)
				rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 2, mode,
						      SCMP_CMP((unsigned)calls[i].flags_arg, SCMP_CMP_MASKED_EQ, creating[c], creating[c]));
		}
	}
	return rc;
}

/* The context for one variant.  Anything else, any architecture but ours
 * (i386 and x32 system calls on x86_64 included), kills the process: a
 * filter that a 32-bit entry point could bypass would be no filter. */
static scmp_filter_ctx build(bool allow_userns, int *rc, const char **what)
{
	scmp_filter_ctx ctx;

	/* Before seccomp_init, which would otherwise probe the kernel (about
	 * nine seccomp(2) calls) and, where seccomp(2) is refused, leave
	 * KILL_PROCESS unavailable: a program that depends on the builder. */
	*what = "seccomp_api_set";
	*rc = seccomp_api_set(SANDBOX_RULES_API_LEVEL);
	if (*rc != 0)
		return NULL;
	*what = "seccomp_init";
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx) {
		*rc = -ENOMEM;
		return NULL;
	}
	*what = "the bad-architecture action";
	*rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	/* A binary tree of system-call numbers instead of a chain: the
	 * kernel emulates the filter for every number of both architectures
	 * when it is installed (its allow cache), and every call it cannot
	 * cache runs it; measured 44 -> 41 us per install here. */
	if (*rc == 0) {
		*what = "the binary-tree optimization";
		*rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	}
	if (*rc == 0) {
		*what = "the address-family rules";
		*rc = deny_families(ctx);
	}
	if (*rc == 0 && !allow_userns) {
		*what = "the user-namespace rules";
		*rc = deny_user_namespaces(ctx);
	}
	if (*rc == 0) {
		*what = "the kernel-interface rules";
		*rc = deny_kernel_interfaces(ctx);
	}
	if (*rc == 0) {
		*what = "the setuid/setgid mode rules";
		*rc = deny_setid_modes(ctx);
	}
	if (*rc != 0) {
		seccomp_release(ctx);
		return NULL;
	}
	return ctx;
}

/* ---- The resolver child's filter --------------------------------------
 * An allowlist: the calls that the resolver child makes between its
 * isolation and its exit, and nothing else (profiles/lookup.c: the pipe,
 * threads, malloc; profiles/dns_stub.c: one UDP socket and poll; glibc's
 * getaddrinfo with NSS "files" and "dns": resolv.conf, nsswitch.conf and
 * hosts, its DNS sockets, the nscd socket it tries first).  Any other call
 * kills the whole child (SIGSYS), and the parent then fails the start
 * (71).  A few that glibc may try and can do without get an errno instead:
 * a socket family or netlink protocol but these, and clone3
 * (pthread_create then falls back to clone, whose flags the filter can
 * judge: a thread, never a new process). */
static const char *const resolver_calls[] = {
	"read", "write", "readv", "writev", "pread64", "close", "openat", "open", "newfstatat", "fstat",
	"stat", "lstat", "statx", "lseek", "fcntl", "mmap", "munmap", "mremap", "mprotect", "madvise", "brk",
	"futex", "set_robust_list", "rseq", "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "sigaltstack",
	"gettid", "getpid", "getuid", "geteuid", "getgid", "getegid", "uname", "exit", "exit_group",
	"clock_gettime", "clock_getres", "gettimeofday", "nanosleep", "clock_nanosleep", "sched_yield",
	"getrandom", "sched_getaffinity", "getcpu", "sysinfo",  /* malloc sizing its arenas; read-only */
	"poll", "ppoll", "connect", "bind", "sendto", "sendmsg", "sendmmsg", "recvfrom", "recvmsg",
	"recvmmsg", "setsockopt", "getsockopt", "getsockname", "getpeername", "shutdown", "restart_syscall",
};

static int allow_names(scmp_filter_ctx ctx, const char *const *names, size_t n)
{
	int rc = 0;

	for (size_t i = 0; i < n && rc == 0; i++) {
		int nr = seccomp_syscall_resolve_name(names[i]);

		if (nr != __NR_SCMP_ERROR)  /* not every call exists on every architecture */
			rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
	}
	return rc;
}

static int resolver_conditional(scmp_filter_ctx ctx)
{
	static const int families[] = { AF_UNIX, AF_INET, AF_INET6, AF_NETLINK };
	int rc;

	/* socket: these families, and of netlink ROUTE only; every other
	 * value gets an errno.  (No unconditional rule: in libseccomp one
	 * would supersede the conditional ones.) */
	rc = 0;
	for (size_t i = 0; i < 3 && rc == 0; i++)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 1,
				      SCMP_A0(SCMP_CMP_MASKED_EQ, LOW32, (scmp_datum_t)families[i]));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 2,
				      SCMP_A0(SCMP_CMP_MASKED_EQ, LOW32, AF_NETLINK), SCMP_A2(SCMP_CMP_EQ, NETLINK_ROUTE, 0));
	if (rc == 0)
		rc = deny_above_and_gaps(ctx, SCMP_SYS(socket), EAFNOSUPPORT, families, 4, AF_NETLINK);
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPROTONOSUPPORT), SCMP_SYS(socket), 2,
				      SCMP_A0(SCMP_CMP_MASKED_EQ, LOW32, AF_NETLINK), SCMP_A2(SCMP_CMP_NE, NETLINK_ROUTE, 0));
	/* ioctl: FIONREAD (glibc's DNS reply sizes) and TCGETS (stdio's
	 * isatty) only; any other kills */
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1, SCMP_A1(SCMP_CMP_MASKED_EQ, LOW32, FIONREAD));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1, SCMP_A1(SCMP_CMP_MASKED_EQ, LOW32, TCGETS));
	/* threads only: clone with CLONE_THREAD; clone3's flags are out of reach */
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
				      SCMP_CMP(CLONE_FLAGS_ARG, SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
	/* prctl: reading the seccomp mode back (resolver_filter_install) */
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prctl), 1, SCMP_A0(SCMP_CMP_EQ, PR_GET_SECCOMP, 0));
	/* reading a limit, never setting one */
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prlimit64), 1, SCMP_A2(SCMP_CMP_EQ, 0, 0));
	return rc;
}

static scmp_filter_ctx build_resolver(int *rc, const char **what)
{
	scmp_filter_ctx ctx;

	*what = "seccomp_api_set";
	*rc = seccomp_api_set(SANDBOX_RULES_API_LEVEL);
	if (*rc != 0)
		return NULL;
	*what = "seccomp_init";
	ctx = seccomp_init(SCMP_ACT_KILL_PROCESS);
	if (!ctx) {
		*rc = -ENOMEM;
		return NULL;
	}
	*what = "the bad-architecture action";
	*rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	if (*rc == 0) {
		*what = "the binary-tree optimization";
		*rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	}
	if (*rc == 0) {
		*what = "the resolver's calls";
		*rc = allow_names(ctx, resolver_calls, sizeof(resolver_calls) / sizeof(resolver_calls[0]));
	}
	if (*rc == 0) {
		*what = "the resolver's conditional rules";
		*rc = resolver_conditional(ctx);
	}
	if (*rc != 0) {
		seccomp_release(ctx);
		return NULL;
	}
	return ctx;
}

/* libseccomp's program as bytes: straight into memory where libseccomp has
 * seccomp_export_bpf_mem (2.6), else through a memfd (Debian 12 has 2.5). */
static int export_bytes(scmp_filter_ctx ctx, unsigned char **buf, size_t *len)
{
#if SCMP_VER_MAJOR > 2 || (SCMP_VER_MAJOR == 2 && SCMP_VER_MINOR >= 6)
	size_t cap = 64 * 1024;
	int rc;

	*buf = malloc(cap);
	if (!*buf)
		return -ENOMEM;
	*len = cap;
	rc = seccomp_export_bpf_mem(ctx, *buf, len);
	return rc;
#else
	struct stat st;
	ssize_t got;
	int fd = memfd_create("sandbox-filter", MFD_CLOEXEC), rc;

	*buf = NULL;
	if (fd < 0)
		return -errno;
	rc = seccomp_export_bpf(ctx, fd);
	if (rc == 0 && fstat(fd, &st) != 0)
		rc = -errno;
	if (rc == 0 && !(*buf = malloc(st.st_size ? (size_t)st.st_size : 1)))
		rc = -ENOMEM;
	if (rc == 0) {
		got = pread(fd, *buf, (size_t)st.st_size, 0);
		if (got != st.st_size)
			rc = got < 0 ? -errno : -EIO;
		*len = (size_t)st.st_size;
	}
	close(fd);
	return rc;
#endif
}

static int export_ctx(scmp_filter_ctx ctx, int rc, struct sock_filter **insns, size_t *n, const char **what)
{
	unsigned char *buf = NULL;
	size_t len = 0;

	*insns = NULL;
	*n = 0;
	if (!ctx)
		return rc ? rc : -EINVAL;
	*what = "seccomp_export_bpf";
	rc = export_bytes(ctx, &buf, &len);
	seccomp_release(ctx);
	if (rc == 0 && (len == 0 || len % sizeof(struct sock_filter) != 0 ||
			len / sizeof(struct sock_filter) > BPF_MAXINSNS))
		rc = -EINVAL;  /* not a program the kernel would take */
	if (rc != 0) {
		free(buf);
		return rc;
	}
	*insns = (struct sock_filter *)buf;
	*n = len / sizeof(struct sock_filter);
	return 0;
}

int sandbox_rules_export(bool allow_userns, struct sock_filter **insns, size_t *n, const char **what)
{
	int rc = 0;
	scmp_filter_ctx ctx = build(allow_userns, &rc, what);

	return export_ctx(ctx, rc, insns, n, what);
}

int sandbox_rules_export_resolver(struct sock_filter **insns, size_t *n, const char **what)
{
	int rc = 0;
	scmp_filter_ctx ctx = build_resolver(&rc, what);

	return export_ctx(ctx, rc, insns, n, what);
}

unsigned int sandbox_rules_arch(void)
{
	return seccomp_arch_native();
}
