/* broker: the key broker's directory and container (docs/broker.md), for
 * the runner (host/lib/keys.sh) and the tests: what host/lib/broker.sh did.
 * The key comes on stdin and a token goes out on stdout (revoked from
 * stdin): neither is ever an argument.  Every engine call is an argv array,
 * CLI_SANDBOX_ENGINE_GLOBAL_ARGS's words first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hostctl/broker_dir.h"
#include "hostctl/broker_run.h"
#include "hostctl/cmds.h"

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

static int broker_start(int argc, char **argv)
{
	bool dry = argc > 0 && strcmp(argv[0], "--dry-run") == 0;
	char out[4096], vol[4200];
	struct engine_cmd c;

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
	engine_cmd_init(&c, argv[0]);
	broker_run_cmd(&c, argv[1], argv[2], argv[3], argv + 4, argc - 4, vol, sizeof(vol));
	if (dry) {
		engine_cmd_print(&c);
		return 0;
	}
	if (engine_cmd_run(&c, out, sizeof(out)) != 0) {
		fprintf(stderr, "cli-sandbox-ctl: error: broker: the broker %s did not start: %s; see '%s logs %s'\n", argv[1],
			engine_last_line(out), argv[0], argv[1]);
		return CTL_EXIT_USAGE;
	}
	return 0;
}

static int broker_wait(const char *engine, const char *name)
{
	if (broker_listens(engine, name))
		return 0;
	fprintf(stderr, "cli-sandbox-ctl: error: broker: the broker %s does not listen: see '%s logs %s'\n", name, engine, name);
	return CTL_EXIT_USAGE;
}

static int broker_stop(const char *engine, const char *name, const char *dir)
{
	char out[4096];
	struct engine_cmd c;

	engine_cmd_init(&c, engine);
	engine_cmd_add(&c, "rm", "-f", name, (char *)NULL);
	if (strcmp(engine, "none") != 0)
		engine_cmd_run(&c, out, sizeof(out));
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
