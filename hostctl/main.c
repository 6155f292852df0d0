/* cli-sandbox-ctl: the host side's program beside the runner script
 * host/cli-sandbox (as wg beside wg-quick).  The script runs the engine;
 * this program owns the endpoints, their probe, the plan and the person's
 * informational commands, all with --json (docs/hostctl.md). */
#include <stdio.h>
#include <string.h>

#include "hostctl/cmds.h"

static const char usage[] =
	"Usage: cli-sandbox-ctl COMMAND [ARGS] [--json]\n"
	"  endpoints list|add|use|rm   the named model endpoints (add probes what each speaks)\n"
	"  plan --cli CLI [...]        the path a CLI's requests take to an endpoint\n"
	"  broker dir|config|key|...   the key broker's directory, tokens and container\n"
	"  session start|end           a run's key broker (and translator): started, ended\n"
	"  status                      is everything in place to launch against the endpoint?\n"
	"  models catalog|list|pull|use   an Ollama endpoint's models (pull shows progress)\n"
	"  version, --version          this program's version and commit, the images' init and digests\n"
	"  platform                    what this host offers a run (engine, cgroups, namespaces, ...)\n"
	"  quickstart                  command lines to start with, filled in for this host\n"
	"  init [--force]              write a commented configuration file in CLI_SANDBOX_HOME\n"
	"  doctor [...]                the runner's doctor: its checks, given what the runner decided\n"
	"  limits [...]                the run's limits, KEY=VALUE lines for the runner\n"
	"  ping-report [...]           ping's checks read and reported, for the runner's ping\n"
	"  demo-report [...]           the demo's steps judged and reported, for the runner's demo\n"
	"  runner --cli CLI [...]      everything the runner decides a run from, in one call\n"
	"  runner --argv -- WORDS...   the person's words read, then the same (or their command run)\n"
	"  credentials --cli CLI [...] the sandbox's credentials: decided, and the file on memory written\n"
	"  host-address ENGINE [NET]   the address at which the engine's containers reach this host\n"
	"  usage                       cli-sandbox's own --help (the runner's; its CLIs from the table)\n"
	"  protect --cli CLI [...]     the read-only mounts over what host tools run, for the runner\n"
	"Each COMMAND --help says more.  docs/hostctl.md.\n";

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} commands[] = {
	{ "endpoints", cmd_endpoints }, { "plan", cmd_plan }, { "broker", cmd_broker },
	{ "session", cmd_session },     { "status", cmd_status },
	{ "version", cmd_version },     { "--version", cmd_version },   { "platform", cmd_platform },
	{ "quickstart", cmd_quickstart }, { "init", cmd_init },       { "models", cmd_models },
	{ "doctor", cmd_doctor }, { "limits", cmd_limits },
	{ "ping-report", cmd_ping_report }, { "demo-report", cmd_demo_report },
	{ "runner", cmd_runner }, { "host-address", cmd_host_address }, { "credentials", cmd_credentials },
	{ "usage", cmd_usage }, { "protect", cmd_protect },
};

int ctl_dispatch(int argc, char **argv)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[0], commands[i].name) != 0)
			continue;
		return commands[i].fn(argc, argv);  /* libcurl is loaded by the first request (curl_lazy.c) */
	}
	return ctl_usage("unknown command: see cli-sandbox-ctl --help");
}

int main(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
		fputs(usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	return ctl_dispatch(argc - 1, argv + 1);
}
