/* The seccomp filter: what the sandbox never needs, denied to PID 1 and to
 * the command.
 *
 *  - socket()/socketpair() of any address family but AF_UNIX, AF_INET,
 *    AF_INET6 and AF_NETLINK: EAFNOSUPPORT.  AF_VSOCK above all: nftables
 *    does not filter it, and on VM runtimes (Kata, Firecracker) a host
 *    vsock listener would be a way out.  AF_PACKET, AF_ALG, AF_KEY,
 *    AF_BLUETOOTH, AF_TIPC, AF_RDS, ... are kernel code the CLIs never use.
 *  - netlink protocols but ROUTE, SOCK_DIAG and KOBJECT_UEVENT:
 *    EPROTONOSUPPORT.
 *  - unless allow_userns (CLI_SANDBOX_ALLOW_USERNS=true): user namespaces,
 *    i.e. clone/unshare with CLONE_NEWUSER (EPERM), and clone3 (ENOSYS, so
 *    libc falls back to clone).  A user namespace gives its creator every
 *    capability inside it and reaches nf_tables and other kernel code with a
 *    record of privilege-escalation bugs.  The opt-in re-enables what needs
 *    them: codex's per-command sandbox (bubblewrap), rootless containers.
 *  - io_uring (ENOSYS), userfaultfd, bpf, perf_event_open and the kernel
 *    keyring (EPERM), as the engines' default profiles do.
 *  - setuid and setgid bits (issue 31): chmod, fchmod, fchmodat, fchmodat2,
 *    creat, mkdir, mkdirat, mknod, mknodat, and open/openat that create,
 *    with S_ISUID or S_ISGID in the mode (EPERM); openat2, whose mode the
 *    filter cannot read, stays allowed (codex's bubblewrap needs it).
 *    no_new_privs does not stop the command from making a setuid file, and
 *    one left in the workspace runs as the sandbox's uid for anyone on the
 *    host.
 *  - system calls of another architecture (i386, x32): the process is killed.
 * Everything else is allowed: the runtime's own profile, if any, still
 * applies on top.  See docs/privileges.md.
 *
 * The rules are written with libseccomp (sandbox_rules.c); the build turns
 * them into the BPF programs this installs, so the init needs no libseccomp. */
#ifndef CLI_SANDBOX_SANDBOX_FILTER_H
#define CLI_SANDBOX_SANDBOX_FILTER_H

#include <stdbool.h>
#include <stddef.h>

#include "base/status.h"

struct sock_filter;

/* Installs the filter in the calling process, which must have set
 * no_new_privs (the privilege drop does); every process it forks and execs
 * inherits it.  Then it reads the filter back (sandbox_filter_verify).  0,
 * or -1 with err (71): the command must not start.  Only on a kernel
 * without seccomp at all, proven by evidence that no failing call can give
 * (PR_GET_SECCOMP says EINVAL and /proc/self/status, read whole, has no
 * Seccomp: field), it warns loudly and returns 0; a PR_GET_SECCOMP that
 * fails otherwise is an error. */
int sandbox_filter_install(bool allow_userns, struct cs_error *err);

/* The filter in force, read back: prctl(PR_GET_SECCOMP) is 2 (filter mode)
 * and calls that only the filter refuses are refused with its errno
 * (socket(AF_NETLINK, NETLINK_GENERIC): EPROTONOSUPPORT, where without it
 * every kernel opens one; socket(AF_VSOCK): EAFNOSUPPORT; fchmod(-1,
 * 04755) and openat(-1, "", O_CREAT, 02644): EPERM, where the kernel says
 * EBADF and ENOENT).  0, or -1 with err (71). */
int sandbox_filter_verify(struct cs_error *err);

/* The resolver child's filter (profiles/lookup.h runs the isolation that
 * installs it): an allowlist of what glibc's resolver, NSS "files" and
 * "dns", the fast path and the child's threads need; any other call kills
 * the child (SIGSYS), and the parent fails the start.  After
 * privileges_isolate (no_new_privs set); read back like the command's
 * (PR_GET_SECCOMP 2, socket(AF_NETLINK, NETLINK_GENERIC) refused).  0, or
 * -1 with err (71).  The code lives here, beside the command's filter,
 * because profiles/ may include only base/: the child reaches it through
 * the isolation hook that the init passes down (entrypoint/main.c). */
int resolver_filter_install(struct cs_error *err);
size_t resolver_filter_program(const struct sock_filter **insns);

/* The program that sandbox_filter_install() loads for this variant (for the
 * tests): sets *insns, returns the number of instructions. */
size_t sandbox_filter_program(bool allow_userns, const struct sock_filter **insns);

#endif
