/* protect: the runner's read-only mounts over what host tools execute
 * (protect.h), as lines the runner adds to the engine command without eval:
 * mount= (-v), env= (-e), made= (what the run made; D goes at its end). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cli_names.h"
#include "hostctl/cmds.h"
#include "hostctl/home.h"
#include "hostctl/protect.h"

static const char help[] =
	"Usage: cli-sandbox-ctl protect --cli CLI --workspace DIR --state DIR [--sandbox-user UID:GID]\n"
	"                               [--dry-run]\n"
	"For the runner: the read-only mounts over what host tools execute in the workspace DIR (its\n"
	"canonical path) and the CLI's state folder (docs/host-script.md, \"What the sandbox protects\n"
	"on the host\"), the placeholders made where a path is absent (not with --dry-run), the\n"
	"sandbox's own copies. Lines: mount=HOST:CT[:ro] (an engine -v), env=NAME=VALUE (-e),\n"
	"made=KIND PATH (D: a private directory the run removes at its end). --sandbox-user: the\n"
	"host identity given what is made for the sandbox when run as root (default 1000:1000).\n";

int cmd_protect(int argc, char **argv)
{
	const char *cli = NULL, *ws = NULL, *state = NULL, *tmp = getenv("TMPDIR");
	char home[4096], own_base[4096], state_ct[4096];
	struct protect_in in = { .sb_uid = 1000, .sb_gid = 1000 };
	struct protect_out out = { .lines = NULL };
	const struct cs_cli_name *row;
	struct cs_error err;
	int rc;

	if (ctl_help(argc, argv, help))
		return 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(a, "--dry-run") == 0) {
			in.dry_run = true;
			continue;
		}
		if (!v)
			return ctl_usage("%s needs a value: see cli-sandbox-ctl protect --help", a);
		i++;
		if (strcmp(a, "--cli") == 0)
			cli = v;
		else if (strcmp(a, "--workspace") == 0)
			ws = v;
		else if (strcmp(a, "--state") == 0)
			state = v;
		else if (strcmp(a, "--sandbox-user") == 0) {
			if (sscanf(v, "%u:%u", &in.sb_uid, &in.sb_gid) != 2)
				return ctl_usage("--sandbox-user '%s' is not UID:GID: see cli-sandbox-ctl protect --help", v);
		} else
			return ctl_usage("unknown protect option '%s': see cli-sandbox-ctl protect --help", a);
	}
	if (!cli || !ws || !state)
		return ctl_usage("protect needs --cli, --workspace and --state: see cli-sandbox-ctl protect --help");
	if (!(row = cs_cli_by_name(cli)))
		return ctl_usage("unknown CLI '%s': see cli-sandbox --help", cli);
	if (ws[0] != '/')
		return ctl_usage("protect needs the workspace's canonical path (--workspace /...)");
	if (home_dir(home, sizeof(home), &err) != 0)
		return ctl_fail(&err);
	if (snprintf(own_base, sizeof(own_base), "%s/sandbox-own", home) >= (int)sizeof(own_base))
		return ctl_usage("CLI_SANDBOX_HOME is too long a path: use a shorter one");
	snprintf(state_ct, sizeof(state_ct), "/home/node/%s", row->state_dir);
	in.ws = ws;
	in.state = state;
	in.state_ct = state_ct;
	in.own_base = own_base;
	in.tmp = tmp && *tmp ? tmp : "/tmp";
	in.cli = cli;
	in.cli_protect = row->protect;
	in.root = getuid() == 0;
	/* the placeholders' modes as the script made them (umask 022), whatever the person's */
	umask(022);
	rc = protect_plan(&in, &out, &err);
	if (rc == 0)
		for (size_t i = 0; i < out.n; i++)
			puts(out.lines[i]);
	protect_out_free(&out);
	if (rc != 0)
		return ctl_fail(&err);
	return fflush(stdout) == 0 ? 0 : CS_EXIT_OSERR;
}
