/* PID 1 and the kernel's OOM killer (docs/host-script.md, "Limits").
 *
 * When the sandbox's memory cgroup reaches its limit, the kernel kills the
 * process with the highest badness in it.  PID 1 must not be that process:
 * the container would end with the kernel's SIGKILL and no word of why.
 *
 *   - PID 1, after the fork and before its drop, sets its own oom_score_adj
 *     to -1000 (OOM_SCORE_ADJ_MIN: never chosen).  Lowering it needs
 *     CAP_SYS_RESOURCE; without it PID 1 keeps the value it was given.
 *   - The command's process, before its own drop, writes its oom_score_adj
 *     back unchanged: holding CAP_SYS_RESOURCE that also sets its floor
 *     (the kernel's oom_score_adj_min), so the command can raise its score
 *     but never lower it below the start value.  It cannot touch PID 1's:
 *     /proc/1 of a non-dumpable PID 1 belongs to root.
 *   - PID 1 reads the memory cgroup's oom_kill counter before the command
 *     starts and after it ends; a rise is the kernel's own evidence that it
 *     killed in the sandbox, which a bare SIGKILL status is not. */
#ifndef CLI_SANDBOX_OOM_H
#define CLI_SANDBOX_OOM_H

#include <stdbool.h>

/* PID 1, before its drop: the shield and the counter's first reading.
 * Never fails: without CAP_SYS_RESOURCE, or without a memory cgroup to
 * read, there is nothing to shield with or report from. */
void oom_guard_pid1(void);

/* The command's process, before its drop: pins its oom_score_adj floor. */
void oom_pin_command(void);

/* PID 1, once the command has ended with the container's status (the
 * command's own, 137 for a SIGKILL): when the counter rose, one line on
 * stderr naming the OOM kill and the memory limit, with the fix. */
void oom_report(int status);

/* For the dry-run plan: what a start does about the OOM killer. */
const char *oom_describe(void);

#endif
