/* The assertion helper of the C tests, reporting in TAP as the shell tests
 * do (tests/lib/tap.sh): every CHECK is one line, "ok N - <condition>" or
 * "not ok N - <file>:<line>: <condition>" followed by "# <why>" on stdout
 * (check_skip: "ok N - <desc> # SKIP <why>", never counted as a pass),
 * and check_done() prints the plan line "1..N" and a summary, and turns
 * failures into the exit status that ctest reads.
 *
 * The message arguments are evaluated only when the check fails, so a
 * message may dereference what the condition has just proved non-NULL. */
#ifndef CLI_SANDBOX_TEST_CHECK_H
#define CLI_SANDBOX_TEST_CHECK_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_failures, check_count, check_skips;

/* A description on one line, '#' escaped (TAP reads "# " as a directive). */
static inline void check_print_text(const char *s)
{
	for (; *s; s++) {
		if (*s == '#')
			fputs("\\#", stdout);
		else if (*s == '\n')
			fputs("\\n", stdout);
		else
			fputc(*s, stdout);
	}
}

static inline void check_result(int ok, const char *file, int line, const char *cond)
{
	check_count++;
	if (ok) {
		printf("ok %d - ", check_count);
		check_print_text(cond);
		fputc('\n', stdout);
		return;
	}
	check_failures++;
	printf("not ok %d - %s:%d: ", check_count, file, line);
	check_print_text(cond);
	fputc('\n', stdout);
}

/* Why a check failed, as TAP diagnostics: every line starts with "# ". */
__attribute__((format(printf, 1, 2)))
static inline void check_diag(const char *fmt, ...)
{
	char *text = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0) {
		puts("# (no memory for the message)");
		return;
	}
	for (char *line = text, *end; line; line = end ? end + 1 : NULL) {
		end = strchr(line, '\n');
		printf("# %.*s\n", end ? (int)(end - line) : (int)strlen(line), line);
	}
	free(text);
	fflush(stdout);
}

#define CHECK(cond, ...)                                                        \
	do {                                                                    \
		int check_ok_ = (cond) ? 1 : 0;                                 \
                                                                                \
		check_result(check_ok_, __FILE__, __LINE__, #cond);            \
		if (!check_ok_)                                                 \
			check_diag(__VA_ARGS__);                                \
	} while (0)

/* The same with a description of its own instead of the condition's text. */
#define CHECK_NAMED(desc, cond, ...)                                            \
	do {                                                                    \
		int check_ok_ = (cond) ? 1 : 0;                                 \
                                                                                \
		check_result(check_ok_, __FILE__, __LINE__, (desc));            \
		if (!check_ok_)                                                 \
			check_diag(__VA_ARGS__);                                \
	} while (0)

/* A check this machine cannot make: "ok N - <desc> # SKIP <why>", counted
 * apart, never as a pass.  WHY names what the kernel or machine lacks, as a
 * control read it (docs/tests.md). */
static inline void check_skip(const char *desc, const char *why)
{
	check_count++;
	check_skips++;
	printf("ok %d - ", check_count);
	check_print_text(desc);
	fputs(" # SKIP ", stdout);
	check_print_text(why);
	fputc('\n', stdout);
}

#define CHECK_STR(a, b) CHECK(strcmp((a), (b)) == 0, "'%s' != '%s'", (a), (b))

static inline int check_done(const char *name)
{
	printf("1..%d\n# %s: %d passed, %d failed, %d skipped\n", check_count, name,
	       check_count - check_failures - check_skips, check_failures, check_skips);
	return check_failures ? 1 : 0;
}

#endif
