/* usage: the runner's --help (cli-sandbox --help hands on here, as it does
 * --version): the person's whole interface in one text, with the CLIs and
 * each one's credential variables read from the one list (base/cli_names.c),
 * so that the help never names a CLI the table lacks or misses one it has. */
#include <stdio.h>
#include <string.h>

#include "base/cli_names.h"
#include "hostctl/cmds.h"

static const char usage_head[] =
	"Usage: cli-sandbox [OPTIONS] [CLI [CLI-ARGS...]]\n"
	"       cli-sandbox [OPTIONS] shell [-w DIR] [--cli CLI] [-- BASH-ARGS...]\n"
	"       cli-sandbox [OPTIONS] [CLI] build [ENGINE-BUILD-ARGS...]\n"
	"       cli-sandbox [OPTIONS] doctor [--json] [CLI]\n"
	"       cli-sandbox endpoints list [--json]|add NAME URL [--type anthropic|openai|ollama]\n"
	"                 [--model M] [--key-env VAR]|use NAME|rm NAME\n"
	"       cli-sandbox [--endpoint NAME] up|down|status [--json]\n"
	"       cli-sandbox [--endpoint NAME] ping [--cli CLI] [--json] [--no-tools]\n"
	"       cli-sandbox [--endpoint NAME] models catalog|list|pull MODEL|use MODEL [--pull]\n"
	"       cli-sandbox [--engine ENGINE] demo [CLI] [--keep] [--json]\n"
	"\n"
	"Runs the CLI (default claude) in the image, the current directory mounted at /workspace.\n"
	"Options come before the CLI's name; everything after it goes to the CLI (cli-sandbox pi -p\n"
	"\"hello\"); a '--' right after the name is dropped.\n";

static const char usage_middle[] =
	"\n"
	"Profiles (default: managed):\n"
	"  --managed URL          only TCP to the model gateway URL (http://A.B.C.D[:PORT][/PATH]);\n"
	"                         without URL, the endpoint from --endpoint or 'endpoints use' is taken\n"
	"  --interactive          for a person at a terminal: DNS, the providers' allowlists, the\n"
	"                         endpoint\n"
	"  --allow NAME[:PORT]    interactive only, repeatable: also allow this destination\n"
	"  --allow-host-network   interactive only: also allow the default gateway's /24\n"
	"  --no-pinning           interactive only: no pinning resolver beside the sandbox; names are\n"
	"                         resolved once, at start, and DNS goes to resolv.conf's nameservers\n"
	"                         (default: $CLI_SANDBOX_PINNING, else true)\n"
	"  --endpoint NAME        use this named endpoint as the model URL (either profile)\n"
	"\n"
	"Options:\n"
	"  --workspace DIR, -w DIR  mount DIR instead of the current directory (never / or your home)\n"
	"  --cli CLI              the CLI for shell and doctor (default claude)\n"
	"  --allow-userns         let the CLI create user namespaces (codex's own sandbox): sets\n"
	"                         CLI_SANDBOX_ALLOW_USERNS=true; needs an engine whose seccomp allows it\n"
	"  --docker-socket        mount the engine's socket: gives the agent control of the host's\n"
	"                         engine\n"
	"  --allow-host-writes    let the agent write what your own tools run (.git/config and hooks,\n"
	"                         .vscode, the CLIs' settings and hooks), read-only by default\n"
	"  --engine docker|podman default: $CLI_SANDBOX_ENGINE, else docker when its daemon answers,\n"
	"                         else podman\n"
	"  --image NAME           default: $CLI_SANDBOX_IMAGE, else localhost/cli-sandbox:latest (what\n"
	"                         image/build.sh builds); for NAME or NAME:latest, a CLI's own image\n"
	"                         NAME:CLI runs instead when the engine has it\n"
	"  --dry-run              print the engine command (shell-quoted) instead of running it;\n"
	"                         creates and changes nothing\n"
	"  --pids-limit N         processes and threads in the sandbox (default 4096)\n"
	"  --memory SIZE          memory, with no swap on top (default half of this host's, at most 8g)\n"
	"  --cpus N               CPUs (default all but one, at least 1)\n"
	"  --nofile N             open files per process (default 65536, within this shell's hard limit)\n"
	"  --tmp-size SIZE        /tmp, a tmpfs counted in --memory (default 1g, at most a quarter of\n"
	"                         it)\n"
	"  --json                 doctor only: print one JSON object\n"
	"  --keys-in              put the key itself into the sandbox (warns): by default a key broker\n"
	"                         beside the sandbox holds it and the CLI gets a token of the run only\n"
	"                         (docs/broker.md)\n"
	"  --keep-keys-out        the default now: accepted, changes nothing (docs/gateway.md)\n"
	"  -h, --help             show this help\n"
	"\n"
	"Commands:\n"
	"  shell                  bash in the same sandbox (image, profile, firewall, user, mounts, and\n"
	"                         the CLI's path: through the gateway when it needs one, the CLI typed\n"
	"                         there pointed at it); with BASH-ARGS it runs them\n"
	"                         (cli-sandbox shell -- -c 'id -u')\n"
	"  build                  build the image from this repository (extra args go to the engine);\n"
	"                         after a CLI's name (cli-sandbox codex build), that CLI's own image;\n"
	"                         then its SBOM, its signed copy and digest in build/ (docs/release.md;\n"
	"                         CLI_SANDBOX_RELEASE=0 skips that, CLI_SANDBOX_SIGN_BY picks the key)\n"
	"  doctor                 check engine, image, endpoint, the CLI's path to it (direct, gateway\n"
	"                         or refused; the gateway's image and an 'up' one), credential and\n"
	"                         workspace; print a fix for each failure\n"
	"  endpoints              manage named model endpoints in CLI_SANDBOX_HOME (default\n"
	"                         ~/.config/cli-sandbox):\n"
	"                         add probes what each speaks (Anthropic Messages, Chat Completions,\n"
	"                         Responses, Ollama); --key-env VAR names the variable with its key\n"
	"  up, down               start / stop a long-lived key broker for the endpoint, and the gateway\n"
	"                         behind it where it translates (else each run that needs them starts\n"
	"                         its own and stops them after): docs/gateway.md\n"
	"  ping                   from inside the image, on the path a run of the CLI takes (through the\n"
	"                         key broker, and the gateway, where a run goes through them): does the\n"
	"                         model answer, and with a structured tool call? READY or NOT OK\n"
	"  status                 is everything in place to launch against the endpoint? (--json)\n"
	"  models                 an Ollama endpoint's models: catalog, list, pull MODEL, use MODEL\n"
	"  version, --version     the version and commit, the images' init (cli-sandbox-ctl,\n"
	"                         docs/hostctl.md)\n"
	"  platform, quickstart   what this host offers a run; command lines filled in for this host\n"
	"  init [--force]         write a commented configuration file in CLI_SANDBOX_HOME\n"
	"  demo                   see it work, with no model server and no key: the CLI (claude, pi or\n"
	"                         opencode) against a scripted model; shows the file it writes, the\n"
	"                         connections refused, no key and no capability inside (demo --help)\n"
	"\n"
	"Credentials: the key of the endpoint (its key-env), or the CLI's own variable (below), when\n"
	"set in your environment, goes to a key broker beside the sandbox (a file on memory); the\n"
	"sandbox's CLI gets a token of this run, revoked at its end. With --keys-in (or a login kept in\n"
	"the CLI's folder) the credential goes in a file on memory-backed storage (XDG_RUNTIME_DIR or\n"
	"/dev/shm) that the container reads and the script removes at the end: no value appears in a\n"
	"command line or in the engine's inspect output. Each CLI's variables:\n";

static const char usage_tail[] =
	"\n"
	"Environment: CLI_SANDBOX_ENGINE, CLI_SANDBOX_IMAGE, CLI_SANDBOX_HOME, CLI_SANDBOX_HOST_ADDRESS\n"
	"(address at which containers reach this host), CLI_SANDBOX_PINNING (false: --no-pinning for\n"
	"every interactive run), CLI_SANDBOX_KEYS_IN (true: --keys-in for every run; a network of your\n"
	"own in CLI_SANDBOX_ENGINE_ARGS needs it, the broker's network being the sandbox's only one),\n"
	"CLI_SANDBOX_DOCKER_SOCKET, CLI_SANDBOX_ENGINE_ARGS (extra words after 'run'),\n"
	"CLI_SANDBOX_ENGINE_GLOBAL_ARGS (extra words before 'run' or 'build'); the limits' defaults:\n"
	"CLI_SANDBOX_PIDS_LIMIT, CLI_SANDBOX_MEMORY, CLI_SANDBOX_CPUS, CLI_SANDBOX_NOFILE,\n"
	"CLI_SANDBOX_TMP_SIZE.\n"
	"An endpoint on this host (localhost, 127.0.0.1 or 'host') is rewritten to that address.\n";

static const char help[] =
	"Usage: cli-sandbox-ctl usage\n"
	"Prints cli-sandbox's own --help (the runner hands --help on here): its options, commands\n"
	"and variables, with the CLIs and each one's credential variables from the CLI table.\n";

#define USAGE_WIDTH 95

/* "CLIs: claude, codex, ..." from the table, in its order. */
static void print_clis(FILE *out)
{
	fputs("CLIs:", out);
	for (const struct cs_cli_name *c = cs_cli_names; c->name; c++)
		fprintf(out, "%s %s", c == cs_cli_names ? "" : ",", c->name);
	fputc('\n', out);
}

/* One line a CLI, "  NAME      VAR VAR ...", its variables folded at the
 * help's width under the first. */
static void print_keys(FILE *out)
{
	for (const struct cs_cli_name *c = cs_cli_names; c->name; c++) {
		const char *p = c->keys;
		int col = fprintf(out, "  %-10s", c->name), indent = col;

		while (*p) {
			size_t n = strcspn(p, " ");

			if (n > 0) {
				if (col > indent && col + 1 + (int)n > USAGE_WIDTH)
					col = fprintf(out, "\n%*s", indent, "") - 1;
				col += fprintf(out, "%s%.*s", col > indent ? " " : "", (int)n, p);
			}
			p += n + (p[n] == ' ');
		}
		fputc('\n', out);
	}
}

int cmd_usage(int argc, char **argv)
{
	if (ctl_help(argc, argv, help))
		return 0;
	if (argc > 1)
		return ctl_usage("usage takes no arguments: run cli-sandbox-ctl usage");
	fputs(usage_head, stdout);
	print_clis(stdout);
	fputs(usage_middle, stdout);
	print_keys(stdout);
	fputs(usage_tail, stdout);
	return fflush(stdout) == 0 ? 0 : CTL_EXIT_USAGE;
}
