/* libFuzzer harness for the plan reader (hostctl/plan_format.h), the C
 * twin of the runner's read loop: no input may crash it; a plan it accepts
 * prints to lines that read back to the same lines; a rejection is one line. */
#include "fuzz.h"
#include "hostctl/plan_format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct plan_read r, again;
	static char lines[16384], lines2[16384];
	struct cs_error err;

	if (plan_read((const char *)data, size, &r, &err) != 0) {
		invariant_error(&err, CS_EXIT_CONFIG);
		return 0;
	}
	invariant(plan_lines(&r.p, lines, sizeof(lines)));
	invariant(plan_read(lines, strlen(lines), &again, &err) == 0);
	invariant(plan_lines(&again.p, lines2, sizeof(lines2)) && strcmp(lines, lines2) == 0);
	return 0;
}
