/* private-dir: the runner's one maker of a private directory for what it
 * still writes itself (the gateway's secrets, host/lib/gateway.sh): the same
 * as the program's own (private_dir.h), printed. */
#include <stdio.h>

#include "hostctl/cmds.h"
#include "hostctl/private_dir.h"

static const char help[] =
	"Usage: cli-sandbox-ctl private-dir BASE PREFIX\n"
	"Makes BASE/PREFIX.RANDOM (16 hex digits from getrandom(2)), mode 700, this user's; a name\n"
	"taken is skipped, five are tried. Prints its path; exit 2 naming the fix when it cannot.\n";

int cmd_private_dir(int argc, char **argv)
{
	char dir[4096];
	struct cs_error err;

	if (ctl_help(argc, argv, help))
		return 0;
	if (argc != 3)
		return ctl_usage("private-dir needs BASE and PREFIX: see cli-sandbox-ctl private-dir --help");
	if (private_dir(argv[1], argv[2], dir, sizeof(dir), NULL, &err) != 0)
		return ctl_fail(&err);
	puts(dir);
	return fflush(stdout) == 0 ? 0 : CTL_EXIT_USAGE;
}
