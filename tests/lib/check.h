/* A minimal assertion kit for the unit tests: every CHECK counts, a failed
 * one prints where and why, and check_done() turns failures into the exit
 * status that ctest reads. */
#ifndef CLI_SANDBOX_CHECK_H
#define CLI_SANDBOX_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_failures, check_count;

#define CHECK(cond, ...)                                                        \
	do {                                                                    \
		check_count++;                                                  \
		if (!(cond)) {                                                  \
			check_failures++;                                       \
			fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__,  \
				__LINE__, #cond);                               \
			fprintf(stderr, __VA_ARGS__);                           \
			fputc('\n', stderr);                                    \
		}                                                               \
	} while (0)

#define CHECK_STR(a, b) CHECK(strcmp((a), (b)) == 0, "'%s' != '%s'", (a), (b))

static inline int check_done(const char *name)
{
	printf("%s: %d passed, %d failed\n", name, check_count - check_failures, check_failures);
	return check_failures ? 1 : 0;
}

#endif
