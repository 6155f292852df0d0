/* broker: the key broker's directory and container (docs/broker.md), for
 * the runner (host/lib/keys.sh) and the tests: what host/lib/broker.sh did.
 * The key comes on stdin and a token goes out on stdout (revoked from
 * stdin): neither is ever an argument.  Every engine call is an argv array,
 * CLI_SANDBOX_ENGINE_GLOBAL_ARGS's words first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hostctl/broker_dir.h"
#include "hostctl/cmds.h"
#include "hostctl/spawn.h"

static const char broker_help[] =
	"Usage: cli-sandbox-ctl broker dir                          make DIR on memory (prints it)\n"
	"       cli-sandbox-ctl broker config DIR API URL MODELS POLICY [KEY-FORM]\n"
	"       cli-sandbox-ctl broker key DIR < KEY\n"
	"       cli-sandbox-ctl broker token-add DIR                 prints a new run token once\n"
	"       cli-sandbox-ctl broker token-revoke DIR < TOKEN\n"
	"       cli-sandbox-ctl broker start [--dry-run] ENGINE NAME IMAGE DIR [ENGINE-RUN-OPTIONS...]\n"
	"       cli-sandbox-ctl broker wait ENGINE NAME             until it listens (10 s at most)\n"
	"       cli-sandbox-ctl broker stop ENGINE NAME DIR         the container and DIR removed\n"
	"API anthropic|openai|gemini; POLICY refuse|rewrite; KEY-FORM x-api-key|bearer|x-goog-api-key.\n"
	"DIR's parent: CLI_SANDBOX_BROKER_RUNDIR, else /dev/shm (tmpfs only). docs/broker.md.\n";

#define ARGV_MAX 160

/* argv = ENGINE, the global args' words, then words[]; words of the global args in store. */
static int engine_argv(const char *engine, char *store, size_t cap, char **argv, int max)
{
	const char *g = getenv("CLI_SANDBOX_ENGINE_GLOBAL_ARGS");
	char *save = NULL;
	int n = 0;

	argv[n++] = (char *)engine;
	if (g && strlen(g) < cap) {
		snprintf(store, cap, "%s", g);
		for (char *w = strtok_r(store, " \t\n", &save); w && n < max / 2; w = strtok_r(NULL, " \t\n", &save))
			argv[n++] = w;
	}
	return n;
}

/* The runner's print_cmd: ENGINE, then each word single-quoted on a line of its own. */
static void print_cmd(char **argv)
{
	fputs(argv[0], stdout);
	for (int i = 1; argv[i]; i++) {
		fputs(" \\\n  '", stdout);
		for (const char *c = argv[i]; *c; c++)
			if (*c == '\'')
				fputs("'\\''", stdout);
			else
				putchar(*c);
		putchar('\'');
	}
	putchar('\n');
}

static char *last_line(char *text)
{
	char *nl = strrchr(text, '\n');
	return nl ? nl + 1 : text;
}

static int broker_start(int argc, char **argv)
{
	bool dry = argc > 0 && strcmp(argv[0], "--dry-run") == 0;
	char store[4096], out[4096], vol[4200];
	char *a[ARGV_MAX];
	int n;

	if (dry)
		argc--, argv++;
	if (argc < 4)
		return ctl_usage("usage: cli-sandbox-ctl broker start [--dry-run] ENGINE NAME IMAGE DIR [ENGINE-RUN-OPTIONS...]");
	if (!dry && access(argv[3], F_OK) == 0) {
		char conf[4200];
		snprintf(conf, sizeof(conf), "%s/broker.conf", argv[3]);
		if (access(conf, R_OK) != 0)
			return ctl_usage("broker: %s is missing: write it with cli-sandbox-ctl broker config first", conf);
	}
	n = engine_argv(argv[0], store, sizeof(store), a, ARGV_MAX);
	/* The confinement every broker runs with: read-only root, /tmp the only writable path (on
	 * memory), no capability, no_new_privs, an unprivileged uid, 64 MiB and 64 PIDs; then the
	 * caller's words (the engine's rules, the network), which come after and so win. */
	const char *fixed[] = { "run", "-d", "--name", argv[1], "--read-only", "--tmpfs", "/tmp:rw,nosuid,nodev,noexec,size=16m,mode=1777",
				"--cap-drop", "ALL", "--security-opt", "no-new-privileges", "--user", "1002:1002", "--memory", "64m",
				"--memory-swap", "64m", "--pids-limit", "64", "--volume", vol, "--label", "io.cli-sandbox.role=broker" };
	snprintf(vol, sizeof(vol), "%s:/run/broker:ro", argv[3]);
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		a[n++] = (char *)fixed[i];
	for (int i = 4; i < argc && n < ARGV_MAX - 2; i++)
		a[n++] = argv[i];
	a[n++] = argv[2];
	a[n] = NULL;
	if (dry) {
		print_cmd(a);
		return 0;
	}
	if (spawn_capture_all(a, out, sizeof(out), 120000) != 0) {
		fprintf(stderr, "cli-sandbox-ctl: error: broker: the broker %s did not start: %s; see '%s logs %s'\n", argv[1],
			last_line(out), argv[0], argv[1]);
		return CTL_EXIT_USAGE;
	}
	return 0;
}

static int broker_wait(const char *engine, const char *name)
{
	char store[4096], out[65536];
	char *a[ARGV_MAX];
	int n0 = engine_argv(engine, store, sizeof(store), a, ARGV_MAX);
	struct timespec pause = { 0, 100 * 1000 * 1000 };

	for (int i = 0; i < 100; i++) {
		int n = n0;
		a[n++] = "exec", a[n++] = (char *)name, a[n++] = "cat", a[n++] = "/proc/net/tcp", a[n] = NULL;
		/* 1F90: port 8080, 0A: LISTEN (the image has no client: /proc is enough) */
		if (spawn_capture(a, out, sizeof(out), 10000) == 0 && strstr(out, ":1F90 00000000:0000 0A"))
			return 0;
		n = n0;
		a[n++] = "inspect", a[n++] = "-f", a[n++] = "{{.State.Running}}", a[n++] = (char *)name, a[n] = NULL;
		if (spawn_capture(a, out, sizeof(out), 10000) != 0 || strcmp(out, "true") != 0)
			break;
		nanosleep(&pause, NULL);
	}
	fprintf(stderr, "cli-sandbox-ctl: error: broker: the broker %s does not listen: see '%s logs %s'\n", name, engine, name);
	return CTL_EXIT_USAGE;
}

static int broker_stop(const char *engine, const char *name, const char *dir)
{
	char store[4096], out[4096];
	char *a[ARGV_MAX];
	int n = engine_argv(engine, store, sizeof(store), a, ARGV_MAX);

	a[n++] = "rm", a[n++] = "-f", a[n++] = (char *)name, a[n] = NULL;
	if (strcmp(engine, "none") != 0)
		spawn_capture(a, out, sizeof(out), 60000);
	broker_dir_remove(dir);
	return 0;
}

int cmd_broker(int argc, char **argv)
{
	struct cs_error err;
	const char *sub = argc > 1 ? argv[1] : "";

	if (ctl_help(argc, argv, broker_help) || argc < 2) {
		if (argc < 2)
			fputs(broker_help, stderr);
		return argc < 2 ? CTL_EXIT_USAGE : 0;
	}
	argc -= 2, argv += 2;
	if (strcmp(sub, "dir") == 0 && argc == 0) {
		const char *parent = getenv("CLI_SANDBOX_BROKER_RUNDIR");
		char dir[4200];

		if (broker_dir_new(parent && *parent ? parent : "/dev/shm", dir, sizeof(dir), &err) != 0)
			return ctl_fail(&err);
		printf("%s\n", dir);
		return 0;
	}
	if (strcmp(sub, "config") == 0 && (argc == 5 || argc == 6)) {
		char text[4096];

		if (broker_config_text(argv[1], argv[2], argv[3], argv[4], argc == 6 ? argv[5] : "", text, sizeof(text), &err) != 0 ||
		    broker_config_write(argv[0], text, &err) != 0)
			return ctl_fail(&err);
		return 0;
	}
	if (strcmp(sub, "key") == 0 && argc == 1)
		return broker_key_write(argv[0], STDIN_FILENO, &err) != 0 ? ctl_fail(&err) : 0;
	if (strcmp(sub, "token-add") == 0 && argc == 1) {
		char token[BROKER_TOKEN_LEN + 1];

		if (broker_token_add(argv[0], token, &err) != 0)
			return ctl_fail(&err);
		printf("%s\n", token);
		explicit_bzero(token, sizeof(token));
		return 0;
	}
	if (strcmp(sub, "token-revoke") == 0 && argc == 1) {
		char token[256];

		if (!fgets(token, sizeof(token), stdin))
			return ctl_usage("broker: no token on stdin: give it as cli-sandbox-ctl broker token-revoke DIR < TOKEN");
		token[strcspn(token, "\n")] = '\0';
		return broker_token_revoke(argv[0], token, &err) != 0 ? ctl_fail(&err) : 0;
	}
	if (strcmp(sub, "start") == 0)
		return broker_start(argc, argv);
	if (strcmp(sub, "wait") == 0 && argc == 2)
		return broker_wait(argv[0], argv[1]);
	if (strcmp(sub, "stop") == 0 && argc == 3)
		return broker_stop(argv[0], argv[1], argv[2]);
	fputs(broker_help, stderr);
	return CTL_EXIT_USAGE;
}
