/* init: a commented configuration file in CLI_SANDBOX_HOME, never over an
 * existing one without --force.  It names the endpoints file (the one
 * place endpoints live: `endpoints` keeps it) and the limits' defaults. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "hostctl/cmds.h"
#include "hostctl/endpoint_file.h"
#include "hostctl/home.h"

static const char help[] =
	"Usage: cli-sandbox-ctl init [--force] [--json]\n"
	"Writes $CLI_SANDBOX_HOME/config (default ~/.config/cli-sandbox/config): a commented file\n"
	"naming the endpoints file and the limits' defaults.  An existing one is kept unless --force.\n";

static const char body[] =
	"# cli-sandbox configuration, written by `cli-sandbox init`.\n"
	"#\n"
	"# Endpoints: one place, the endpoints file beside this one:\n"
	"#   %s\n"
	"# kept by `cli-sandbox endpoints add|use|rm` (one \"NAME URL key=value...\" a line;\n"
	"# keys are never in it, only the NAME of the variable holding each: key-env=VAR).\n"
	"#\n"
	"# The limits of every run.  Each is set by the variable of the same name in your\n"
	"# environment (or its option: --pids-limit, --memory, --cpus, --nofile, --tmp-size);\n"
	"# these are the defaults when neither is given:\n"
	"#   CLI_SANDBOX_PIDS_LIMIT=4096   processes and threads\n"
	"#   CLI_SANDBOX_MEMORY=           half of this host's memory, at most 8g, no swap on top\n"
	"#   CLI_SANDBOX_CPUS=             all CPUs but one, at least 1\n"
	"#   CLI_SANDBOX_NOFILE=65536      open files per process (within your hard limit)\n"
	"#   CLI_SANDBOX_TMP_SIZE=1g       /tmp, counted in the memory limit\n"
	"#\n"
	"# The engine and image: CLI_SANDBOX_ENGINE (docker or podman), CLI_SANDBOX_IMAGE.\n"
	"# See cli-sandbox --help and docs/hostctl.md.\n";

int cmd_init(int argc, char **argv)
{
	char path[4096], eps[4096], text[sizeof(body) + 8192];
	struct cs_error err;
	struct stat st;
	bool json, force = false;

	if (ctl_help(argc, argv, help))
		return 0;
	json = ctl_take_json(&argc, argv);
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--force") != 0)
			return ctl_usage("usage: cli-sandbox-ctl init [--force] [--json]");
		force = true;
	}
	if (home_file("config", path, sizeof(path), &err) != 0 || home_file("endpoints", eps, sizeof(eps), &err) != 0)
		return ctl_fail(&err);
	if (!force && lstat(path, &st) == 0)
		return ctl_usage("%s exists already: keep it, or write it again with cli-sandbox init --force", path);
	snprintf(text, sizeof(text), body, eps);
	if (write_file_atomic(path, text, strlen(text), &err) != 0)
		return ctl_fail(&err);
	if (json) {
		json_t *o = json_object();
		json_object_set_new(o, "config", json_string(path));
		json_object_set_new(o, "endpoints_file", json_string(eps));
		return ctl_print_json(o);
	}
	printf("wrote %s\n", path);
	return 0;
}
