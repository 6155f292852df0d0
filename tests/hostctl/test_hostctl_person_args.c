/* The person's words as the runner reads them (hostctl/person_args.h): the
 * script's options first, the first other word naming what to do, a CLI's
 * words its own; the program's commands handed on with the options that
 * concern them; every refusal of the script's loop, word for word.  The
 * runner's behaviour end to end is tests/host/run.sh's. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "hostctl/person_args.h"

static const char *env_engine, *env_image, *env_keys_in, *env_pinning;

static const char *fake_env(const char *name)
{
	return strcmp(name, "CLI_SANDBOX_ENGINE") == 0	  ? env_engine
	       : strcmp(name, "CLI_SANDBOX_IMAGE") == 0	  ? env_image
	       : strcmp(name, "CLI_SANDBOX_KEYS_IN") == 0 ? env_keys_in
	       : strcmp(name, "CLI_SANDBOX_PINNING") == 0 ? env_pinning
							  : NULL;
}

static struct person_args a;
static char err[1024];

/* words: blank-separated (no test word holds a blank); the parse's result. */
static int parse(const char *words)
{
	static char buf[1024];
	char *v[64];
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", words);
	for (char *save = NULL, *w = strtok_r(buf, " ", &save); w && n < 64; w = strtok_r(NULL, " ", &save))
		v[n++] = w;
	err[0] = '\0';
	return person_args_parse(n, v, fake_env, &a, err, sizeof(err));
}

static bool refused(const char *words, const char *text)
{
	return parse(words) == -1 && strstr(err, text) != NULL;
}

int main(void)
{
	CHECK(parse("") == 0 && strcmp(a.cmd, "run") == 0 && strcmp(a.cli, "claude") == 0 && !a.cli_named &&
		      strcmp(a.profile, "managed") == 0 && strcmp(a.image, "localhost/cli-sandbox:latest") == 0 &&
		      strcmp(a.workspace, ".") == 0 && a.pinning && !a.keys_in && a.used == 0,
	      "no words: a managed run of claude, the defaults");
	CHECK(parse("--dry-run --managed http://192.0.2.1:4000 codex exec -p hi") == 0 && strcmp(a.cli, "codex") == 0 &&
		      a.cli_named && a.dry_run && strcmp(a.url, "http://192.0.2.1:4000") == 0 && a.used == 4,
	      "options, then the CLI: its words are the rest (used %d)", a.used);
	CHECK(parse("claude -- --dry-run") == 0 && a.used == 2 && !a.dry_run, "a '--' right after the CLI is dropped, the rest the CLI's");
	CHECK(parse("--managed=http://192.0.2.1:4000 --cli=pi") == 0 && strcmp(a.url, "http://192.0.2.1:4000") == 0 &&
		      strcmp(a.cli, "pi") == 0 && a.used == 2,
	      "--NAME=VALUE read as --NAME VALUE");
	CHECK(parse("--dry-run=claude -p") == 0 && a.dry_run && strcmp(a.cli, "claude") == 0 && a.used == 1,
	      "a flag's =VALUE is the next word (the script's split), used %d", a.used);
	CHECK(parse("codex build --no-cache") == 0 && strcmp(a.cmd, "build") == 0 && a.cli_named && a.used == 2,
	      "CLI build: build that CLI's image, the rest the engine's");
	CHECK(parse("-w /src shell --cli gemini -w /other -- -c true") == 0 && strcmp(a.cmd, "shell") == 0 &&
		      strcmp(a.workspace, "/other") == 0 && strcmp(a.cli, "gemini") == 0 && a.used == 8,
	      "shell reads its own words up to '--'");
	CHECK(parse("doctor --interactive codex --cpus 2 --json") == 0 && strcmp(a.cmd, "doctor") == 0 &&
		      strcmp(a.cli, "codex") == 0 && a.json && strcmp(a.limits[2], "2") == 0,
	      "doctor reads the options, and a CLI's name, after it");
	CHECK(parse("--interactive --allow a.example --allow b.example --no-pinning --allow-host-network") == 0 &&
		      strcmp(a.allow, "a.example,b.example") == 0 && !a.pinning && a.host_network,
	      "--allow's values joined; --no-pinning");
	CHECK(parse("--endpoint lan ping --cli codex") == 0 && strcmp(a.cmd, "ping") == 0 && a.used == 3 &&
		      strcmp(a.endpoint, "lan") == 0,
	      "ping: its words are its own");
	CHECK(parse("--json demo --keep") == 0 && strcmp(a.cmd, "demo") == 0 && a.json && a.used == 2,
	      "demo: --json allowed, its words its own");

	/* the program's commands */
	CHECK(parse("endpoints list") == 0 && a.kind == PERSON_PROGRAM && a.n_prog == 1 &&
		      strcmp(a.prog[0], "endpoints") == 0 && a.used == 1,
	      "named first, endpoints goes to the program with its words");
	CHECK(parse("--help --dry-run") == 0 && a.kind == PERSON_PROGRAM && strcmp(a.prog[0], "usage") == 0 && a.used == 2,
	      "--help: usage, the rest dropped");
	CHECK(parse("--engine podman --image x:1 --json --endpoint lan --cli pi status --verbose") == 0 &&
		      a.kind == PERSON_PROGRAM && a.n_prog == 6 && strcmp(a.prog[1], "--cli") == 0 &&
		      strcmp(a.prog[3], "--endpoint") == 0 && strcmp(a.prog[5], "--json") == 0 && a.used == 10 &&
		      strcmp(a.set_engine, "podman") == 0 && strcmp(a.set_image, "x:1") == 0,
	      "status after options: --cli, --endpoint, --json and the engine and image go with it");
	CHECK(parse("--json --endpoint lan models pull m") == 0 && a.n_prog == 4 && !a.set_image && a.used == 4,
	      "models: --endpoint and --json, no engine or image");
	CHECK(parse("--json endpoints list") == 0 && a.n_prog == 1, "endpoints: nothing added");
	CHECK(parse("--image i --version") == 0 && a.kind == PERSON_PROGRAM && strcmp(a.prog[0], "--version") == 0 &&
		      strcmp(a.set_image, "i") == 0 && !a.set_engine,
	      "--version after options: the image goes with it");
	CHECK(parse("--version=x") == 0 && a.n_prog == 2 && strcmp(a.prog[1], "x") == 0, "--version=X: X its word");

	/* refusals, the script's words */
	CHECK(refused("--workspace", "--workspace needs a value: see cli-sandbox --help"), "a value missing: %s", err);
	CHECK(refused("--managed http://192.0.2.1 --interactive", "--managed and --interactive exclude each other"), "%s", err);
	CHECK(refused("--cli nope", "unknown CLI 'nope': use one of claude, codex, pi, gemini, opencode"), "%s", err);
	CHECK(refused("--cli claude codex", "choose one CLI, not both claude and codex"), "%s", err);
	CHECK(refused("--managed http://u:p@192.0.2.1/", "the URL holds a user name or password") && !strstr(err, "u:p"),
	      "userinfo refused, the URL not repeated: %s", err);
	CHECK(parse("--managed http://192.0.2.1/a@b") == 0, "an '@' in the path is no userinfo");
	CHECK(refused("--endpoint -x", "bad endpoint name '-x'"), "%s", err);
	CHECK(refused("--frob", "unknown option '--frob': see cli-sandbox --help"), "%s", err);
	CHECK(refused("--frob=1", "unknown option '--frob'"), "the name of a split word: %s", err);
	CHECK(refused("--=x", "unknown option '--=x'"), "'--=x' is no '--': %s", err);
	CHECK(refused("frob", "unknown command 'frob': use a CLI (claude, codex, pi, gemini, opencode), shell"), "%s", err);
	CHECK(refused("shell --frob", "unknown shell argument '--frob'"), "%s", err);
	CHECK(refused("--json claude", "--json is for doctor only"), "%s", err);
	CHECK(refused("--engine lxc", "unknown engine 'lxc': use --engine docker or --engine podman"), "%s", err);
	CHECK(refused("--allow a.example", "--allow needs --interactive"), "%s", err);
	CHECK(refused("--allow-host-network", "--allow-host-network needs --interactive"), "%s", err);
	CHECK(refused("--no-pinning", "--no-pinning needs --interactive"), "%s", err);
	CHECK(refused("-w a\nb", "a value holds a line break"), "a value a line cannot carry: %s", err);
	CHECK(refused("--image x\narg_cmd=run demo", "a value holds a line break"), "... demo's too: %s", err);
	env_keys_in = "yes";
	CHECK(refused("claude", "CLI_SANDBOX_KEYS_IN='yes' is not valid: set it to true or false"), "%s", err);
	CHECK(parse("endpoints list") == 0, "... but the program's commands named first go on (as the script's)");
	env_keys_in = "true", env_pinning = "false", env_engine = "podman", env_image = "r/i:t";
	CHECK(parse("claude") == 0 && a.keys_in && !a.pinning && strcmp(a.engine, "podman") == 0 &&
		      strcmp(a.engine_from, "CLI_SANDBOX_ENGINE") == 0 && strcmp(a.image, "r/i:t") == 0,
	      "the variables: CLI_SANDBOX_KEYS_IN, _PINNING, _ENGINE, _IMAGE");
	CHECK(parse("--engine docker claude") == 0 && strcmp(a.engine_from, "--engine") == 0, "--engine wins, and says so");
	return check_done("test_hostctl_person_args");
}
