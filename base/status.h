/* Exit statuses and the one error style of cli-sandbox-init.
 *
 * Every stage reports a failure as a value (struct cs_error) instead of
 * printing, so the stages stay pure and testable; only the entrypoint prints
 * the one line and exits with the status the contract assigns. */
#ifndef CLI_SANDBOX_BASE_STATUS_H
#define CLI_SANDBOX_BASE_STATUS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

enum cs_exit {
	CS_EXIT_OK = 0,
	CS_EXIT_OSERR = 71,      /* the firewall or the privilege drop failed */
	CS_EXIT_CONFIG = 78,     /* configuration error (EX_CONFIG) */
	CS_EXIT_NOEXEC = 126,    /* the command is not executable */
	CS_EXIT_NOTFOUND = 127,  /* the command is not found */
};

struct cs_error {
	int status;       /* one of enum cs_exit */
	char msg[1024];   /* "<what is wrong>; <how to fix it>" without newline */
};

/* Fills err and returns -1, so callers can write `return cs_fail(...)`. */
int cs_fail(struct cs_error *err, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Prints "cli-sandbox-init: error: <msg>" as one line on stderr and returns
 * err->status, so main can write `return cs_print_error(&err);`. */
int cs_print_error(const struct cs_error *err);

/* A warning line ("cli-sandbox-init: warning: ..."); never stops the start. */
void cs_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* An informational line on stderr ("cli-sandbox-init: ..."). */
void cs_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Writes one whole line (with its newline) where the error and warning
 * lines go: stderr, or after cs_output_nonblocking() PID 1's own
 * descriptor, which never waits (block_log.c's stderr lines use it too). */
void cs_write_line(const char *line, size_t n);

/* From now on every line goes out without ever blocking: through a new,
 * non-blocking open file description of stderr (a terminal or a pipe; the
 * command's own stays as it is), send(MSG_DONTWAIT) on a socket, or as is
 * to a regular file.  A line that is not taken at once is dropped and
 * counted, and the count is reported before the next line that gets
 * through.  For PID 1 once it only supervises: a command that stops the
 * terminal (tcflow(TCOOFF)) or a pipe nobody drains must not stall it. */
void cs_output_nonblocking(void);
/* Lines dropped since the last report (for the tests). */
unsigned long long cs_output_dropped(void);

/* While muted, warnings and informational lines are not printed (errors
 * are): for a stage that reads another profile's data only to learn what it
 * would open (--verify-only), whose remarks are not this start's. */
void cs_mute(bool muted);

#endif
