#include "hostctl/home.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostctl/validate.h"

int home_dir(char *out, size_t len, struct cs_error *err)
{
	const char *h = getenv("CLI_SANDBOX_HOME"), *home = getenv("HOME");
	int n;

	if (h && *h)
		n = snprintf(out, len, "%s", h);
	else if (home && *home == '/')
		n = snprintf(out, len, "%s/.config/cli-sandbox", home);
	else
		return cs_fail(err, CS_EXIT_CONFIG, "neither CLI_SANDBOX_HOME nor HOME is set: set CLI_SANDBOX_HOME to a folder for cli-sandbox's files");
	if (n < 0 || (size_t)n >= len)
		return cs_fail(err, CS_EXIT_CONFIG, "CLI_SANDBOX_HOME is too long: set it to a shorter path");
	return 0;
}

int home_file(const char *file, char *out, size_t len, struct cs_error *err)
{
	char dir[3800];
	int n;

	if (home_dir(dir, sizeof(dir), err) != 0)
		return -1;
	n = snprintf(out, len, "%s/%s", dir, file);
	if (n < 0 || (size_t)n >= len)
		return cs_fail(err, CS_EXIT_CONFIG, "CLI_SANDBOX_HOME is too long: set it to a shorter path");
	return 0;
}

void home_current_line(char *out, size_t len)
{
	char path[4096];
	struct cs_error err;
	FILE *f;

	out[0] = '\0';
	if (home_file("current", path, sizeof(path), &err) != 0 || !(f = fopen(path, "re")))
		return;
	if (!fgets(out, (int)len, f))
		out[0] = '\0';
	fclose(f);
	out[strcspn(out, "\r\n")] = '\0';
}

void home_current(char *out, size_t len)
{
	home_current_line(out, len);
	if (!valid_endpoint_name(out, strlen(out)))
		out[0] = '\0';
}
