/* The seccomp filter's rules, in libseccomp's terms: the one source of truth
 * for what caps/sandbox_filter.h denies.  Only the build-time generator
 * (caps/sandbox_filter_gen.c) and the test that regenerates the program
 * link this and libseccomp; cli-sandbox-init installs the BPF program the
 * generator wrote into the build tree (sandbox_filter_bpf.h), so it neither
 * probes the kernel nor builds anything at run time. */
#ifndef CLI_SANDBOX_SANDBOX_RULES_H
#define CLI_SANDBOX_SANDBOX_RULES_H

#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>

/* The libseccomp API level the program is generated for: 3, the first with
 * SCMP_ACT_KILL_PROCESS.  Set explicitly (seccomp_api_set), so libseccomp
 * never asks the build machine's kernel what it supports: the program is
 * the same on a laptop, in CI and in a `docker build` under Docker's default
 * seccomp profile. */
#define SANDBOX_RULES_API_LEVEL 3

/* The program for this variant, as libseccomp generates it for the native
 * architecture (seccomp_export_bpf): *insns is malloc'd, *n instructions.
 * 0, or a negative errno with *what naming the libseccomp step that failed. */
int sandbox_rules_export(bool allow_userns, struct sock_filter **insns, size_t *n, const char **what);

/* The resolver child's program (an allowlist: anything else kills it),
 * exported the same way. */
int sandbox_rules_export_resolver(struct sock_filter **insns, size_t *n, const char **what);

/* The native architecture's AUDIT_ARCH_* value (libseccomp's token for it). */
unsigned int sandbox_rules_arch(void);

#endif
