/* session: a run's sidecars, started and ended in one call each (docs/broker.md,
 * "In a run"; hostctl/session.h): the runner's keys_start and gw_start, in C.
 * The key comes on stdin (the runner pipes it with printf, a builtin), never
 * in an argument; what the runner needs goes out as KEY=VALUE lines. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "base/sha256.h"
#include "hostctl/broker_dir.h"
#include "hostctl/broker_run.h"
#include "hostctl/cmds.h"
#include "hostctl/gateway_config.h"
#include "hostctl/session.h"
#include "hostctl/spawn.h"

static const char session_help[] =
	"Usage: cli-sandbox-ctl session start [--dry-run] --engine ENGINE --id RUNNER-PID --broker-image IMAGE\n"
	"           --api API --upstream URL [--models M] [--key-form F] [--key-var NAME | --router-token]\n"
	"           [--upstream-network NET] [--first CONTAINER]...\n"
	"           [--translate --gateway-image IMAGE --gateway-upstream URL --upstream-api chat|anthropic --model M]\n"
	"       cli-sandbox-ctl session start --keep NAME --record FILE ...   a broker (and router) kept for 'up' (no token,\n"
	"                                                                     no guardian)\n"
	"       cli-sandbox-ctl session join --record FILE [--dry-run] --id RUNNER-PID [--first CONTAINER]...\n"
	"           [--api A --key-form F --mode direct|translate --models M]   a run's token on it (exit 3: none fits)\n"
	"       cli-sandbox-ctl session down --record FILE                        up's broker ended (exit 3: none)\n"
	"       cli-sandbox-ctl session end ID [--container NAME]...\n"
	"       cli-sandbox-ctl session gateway-config chat|anthropic URL MODEL keyed|keyless\n"
	"start reads the key (the value of --key-var, or the router's token) on stdin, starts the broker\n"
	"(and the router behind it with --translate), and prints session=ID, network=, url= and token=\n"
	"lines (and router=, the router's container); a guardian ends the session when the runner\n"
	"(RUNNER-PID) dies. docs/broker.md.\n";

#define GW_SECRET_MOUNT "/run/cli-sandbox-gateway/env"

struct session {
	const char *engine, *id, *broker_image, *api, *upstream, *models, *key_form, *key_var, *upnet;
	const char *gw_image, *gw_upstream, *up_api, *model, *keep, *record;
	const char *first[4];
	int nfirst;
	bool dry, translate, router_token;
	char base[4096], priv[4200], dir[4400], secrets[4200];
	char kb_ct[80], kb_net[256], gw_ct[80], gw_net[256], up[4200], suffix[4], upnet_buf[256];
	char token[BROKER_TOKEN_LEN + 1], gw_token[33], ip[64], gw_ip[64];
	char key[8192];
	size_t keylen;
};

static const char *env_or(const char *name, const char *fallback)
{
	const char *v = getenv(name);
	return v && *v ? v : fallback;
}

static int parse(struct session *s, int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		const char **slot = NULL;

		if (strcmp(o, "--dry-run") == 0) {
			s->dry = true;
			continue;
		}
		if (strcmp(o, "--translate") == 0) {
			s->translate = true;
			continue;
		}
		if (strcmp(o, "--router-token") == 0) {
			s->router_token = true;
			continue;
		}
		const struct {
			const char *name;
			const char **slot;
		} opts[] = { { "--engine", &s->engine },
			     { "--id", &s->id },
			     { "--broker-image", &s->broker_image },
			     { "--api", &s->api },
			     { "--upstream", &s->upstream },
			     { "--models", &s->models },
			     { "--key-form", &s->key_form },
			     { "--key-var", &s->key_var },
			     { "--upstream-network", &s->upnet },
			     { "--gateway-image", &s->gw_image },
			     { "--gateway-upstream", &s->gw_upstream },
			     { "--upstream-api", &s->up_api },
			     { "--model", &s->model },
			     { "--keep", &s->keep },
			     { "--record", &s->record },
			     { "--first", NULL } };
		bool known = false;
		for (size_t k = 0; k < sizeof(opts) / sizeof(opts[0]); k++)
			if (strcmp(o, opts[k].name) == 0) {
				known = true;
				slot = opts[k].slot;
			}
		if (!known || !v)
			return ctl_usage("session start: %s %s: see cli-sandbox-ctl session --help", o, known ? "needs a value" : "is not an option");
		if (slot)
			*slot = v;
		else if (s->nfirst < 4)
			s->first[s->nfirst++] = v;
		i++;
	}
	if (s->keep)
		s->id = s->keep; /* names: cli-sandbox-broker-NAME */
	if (s->keep && (s->nfirst || !s->record))
		return ctl_usage("session start: --keep needs --record FILE, and takes no --first");
	if (s->translate && s->router_token)
		return ctl_usage("session start: --translate starts the router whose token the broker holds: drop --router-token");
	if (!s->engine || !s->id || !s->broker_image || !s->api || (!s->translate && !s->upstream) ||
	    (s->translate && (!s->gw_image || !s->gw_upstream || !s->up_api || !s->model)))
		return ctl_usage("session start: --engine, --id, --broker-image, --api and --upstream (or --translate's four) are needed: see cli-sandbox-ctl session --help");
	if (!s->keep && (strspn(s->id, "0123456789") != strlen(s->id) || strlen(s->id) > 10))
		return ctl_usage("session start: --id '%s' is not a process id: give the runner's $$", s->id);
	if (!s->models)
		s->models = "";
	if (!s->key_form)
		s->key_form = "";
	return 0;
}

/* BASE: XDG_RUNTIME_DIR, else /dev/shm, the first on memory (tmpfs or ramfs) that this user
 * may write and the engine's -v can mount (no ':'). */
static bool memory_base(char *out, size_t len)
{
	const char *cands[] = { getenv("XDG_RUNTIME_DIR"), "/dev/shm" };

	for (size_t i = 0; i < 2; i++) {
		struct statfs fs;
		const char *b = cands[i];

		if (!b || !*b || strchr(b, ':') || access(b, W_OK | X_OK) != 0 || statfs(b, &fs) != 0)
			continue;
		if ((unsigned long)fs.f_type == 0x01021994UL /* tmpfs */ || (unsigned long)fs.f_type == 0x858458f6UL /* ramfs */) {
			snprintf(out, len, "%s", b);
			return true;
		}
	}
	return false;
}

/* The names, as the runner had them: cli-sandbox-broker-run-PID, cli-sandbox-gw-run-PID, the
 * networks named by the env knobs or after the containers. */
static void names(struct session *s)
{
	snprintf(s->kb_ct, sizeof(s->kb_ct), s->keep ? "cli-sandbox-broker-%s" : "cli-sandbox-broker-run-%s", s->id);
	/* up's broker has a network of its own name: a run that does not join it makes its own */
	snprintf(s->kb_net, sizeof(s->kb_net), "%s", s->keep ? s->kb_ct : env_or("CLI_SANDBOX_BROKER_NETWORK", s->kb_ct));
	/* up's router too: cli-sandbox-gw-NAME, on a network of its own name */
	snprintf(s->gw_ct, sizeof(s->gw_ct), s->keep ? "cli-sandbox-gw-%s" : "cli-sandbox-gw-run-%s", s->id);
	snprintf(s->gw_net, sizeof(s->gw_net), "%s", s->keep ? s->gw_ct : env_or("CLI_SANDBOX_GATEWAY_NETWORK", s->gw_ct));
	if (!s->upnet)
		s->upnet = env_or("CLI_SANDBOX_BROKER_UPSTREAM_NETWORK", env_or("CLI_SANDBOX_GATEWAY_UPSTREAM_NETWORK", ""));
	if (s->translate) {
		s->upnet = s->gw_net;
		snprintf(s->up, sizeof(s->up), "http://%s:%d", *s->gw_ip ? s->gw_ip : "<gateway-ip>", GATEWAY_PORT);
		s->suffix[0] = '\0';
		return;
	}
	/* The broker's upstream is the URL without a trailing /v1 (its path the prefix); the
	 * sandbox's URL keeps the /v1 after the broker's address. */
	size_t n = strlen(s->upstream);
	if (n && s->upstream[n - 1] == '/')
		n--;
	s->suffix[0] = '\0';
	if (n >= 3 && strncmp(s->upstream + n - 3, "/v1", 3) == 0)
		n -= 3, snprintf(s->suffix, sizeof(s->suffix), "/v1");
	snprintf(s->up, sizeof(s->up), "%.*s", (int)n, s->upstream);
}

/* The router's subnet: up's has its own knob, as up's broker has (a run's router may run beside it). */
static const char *gw_subnet_var(const struct session *s)
{
	return s->keep ? "CLI_SANDBOX_GATEWAY_UP_SUBNET" : "CLI_SANDBOX_GATEWAY_SUBNET";
}

static void net_create_cmd(struct engine_cmd *c, const char *engine, const char *subnet_var, const char *net)
{
	const char *subnet = getenv(subnet_var);

	engine_cmd_init(c, engine);
	engine_cmd_add(c, "network", "create", "--internal", (char *)NULL);
	if (subnet && *subnet)
		engine_cmd_add(c, "--subnet", subnet, (char *)NULL);
	engine_cmd_add(c, net, (char *)NULL);
}

/* The router's run (the runner's gw_cmd_run): its own confinement, then CLI_SANDBOX_ENGINE_ARGS'
 * words (which then win), its upstream network, its config (no secret), its secrets' file. */
static int gw_run_cmd(struct engine_cmd *c, struct session *s, char *words, char *mem, char *pids, char *cfg, char *vol,
		      size_t len)
{
	char *json = gateway_config_json(s->up_api, s->gw_upstream, s->model, s->key_var != NULL);
	const char *up = getenv("CLI_SANDBOX_GATEWAY_UPSTREAM_NETWORK");

	if (!json || snprintf(cfg, len, "CLI_SANDBOX_GATEWAY_CONFIG=%s", json) >= (int)len) {
		free(json);
		return ctl_usage("session: the router's configuration does not fit: shorten the URL or the model");
	}
	free(json);
	snprintf(mem, 64, "%s", env_or("CLI_SANDBOX_GATEWAY_MEMORY", "512m"));
	snprintf(pids, 32, "%s", env_or("CLI_SANDBOX_GATEWAY_PIDS_LIMIT", "128"));
	snprintf(vol, 4400, "%s/env:" GW_SECRET_MOUNT ":ro", s->secrets);
	engine_cmd_init(c, s->engine);
	engine_cmd_add(c, "run", "-d", "--name", s->gw_ct, "--read-only", "--tmpfs", "/tmp:rw,nosuid,nodev,noexec,size=16m,mode=1777",
		       "-e", "HOME=/tmp", "--cap-drop=ALL", "--security-opt=no-new-privileges", "--pids-limit", pids, "--memory", mem,
		       "--memory-swap", mem, (char *)NULL);
	engine_cmd_words(c, words);
	if (up && *up)
		engine_cmd_add(c, "--network", up, (char *)NULL);
	engine_cmd_add(c, "--label", "io.cli-sandbox.role=gateway", "-e", cfg, "-v", vol, "--entrypoint", "/bin/sh", s->gw_image, "-c",
		       "set -a && . " GW_SECRET_MOUNT " && set +a && exec /usr/local/bin/cli-sandbox-gateway", (char *)NULL);
	return 0;
}

static void broker_cmd(struct engine_cmd *c, struct session *s, char *words, char *vol)
{
	char *extra[ENGINE_ARGV_MAX];
	struct engine_cmd w = { .n = 0 };
	int n = 0;

	engine_cmd_words(&w, words);
	for (int i = 0; i < w.n && n < ENGINE_ARGV_MAX - 4; i++)
		extra[n++] = w.argv[i];
	if (*s->upnet)
		extra[n++] = "--network", extra[n++] = (char *)s->upnet;
	engine_cmd_init(c, s->engine);
	broker_run_cmd(c, s->kb_ct, s->broker_image, s->dry ? "DIR" : s->dir, extra, n, vol, 4400);
}

static void connect_cmd(struct engine_cmd *c, const char *engine, const char *net, const char *ct)
{
	engine_cmd_init(c, engine);
	engine_cmd_add(c, "network", "connect", net, ct, (char *)NULL);
}

static int dry_run(struct session *s)
{
	static char words1[4096], words2[4096], cfg[8192], vol[4400], mem[64], pids[32];
	struct engine_cmd c;

	snprintf(words1, sizeof(words1), "%s", env_or("CLI_SANDBOX_ENGINE_ARGS", ""));
	snprintf(words2, sizeof(words2), "%s", words1);
	if (s->translate) {
		if (!memory_base(s->base, sizeof(s->base)))
			snprintf(s->base, sizeof(s->base), "/dev/shm");
		snprintf(s->secrets, sizeof(s->secrets), "%s/cli-sandbox-gateway.RANDOM", s->base);
		puts("# the translator behind the key broker (claude-code-router; it holds the key, the broker its token):");
		net_create_cmd(&c, s->engine, gw_subnet_var(s), s->gw_net);
		engine_cmd_print(&c);
		if (gw_run_cmd(&c, s, words1, mem, pids, cfg, vol, sizeof(cfg)) != 0)
			return CTL_EXIT_USAGE;
		engine_cmd_print(&c);
		connect_cmd(&c, s->engine, s->gw_net, s->gw_ct);
		engine_cmd_print(&c);
		printf("# the router is reachable from the key broker alone, on %s (the sandbox is not on it):\n", s->gw_net);
	}
	printf("# the key broker beside the sandbox (docs/broker.md); the sandbox reaches only it, on %s:\n", s->kb_net);
	printf("# DIR (a private directory on memory) gets broker.conf: %s API, upstream %s, models %s, model policy rewrite, key form %s\n",
	       s->api, s->up, *s->models ? s->models : "any", s->key_form);
	if (s->key_var && !s->translate)
		printf("# DIR/key gets the value of $%s (never printed); DIR/tokens a fresh token of this run\n", s->key_var);
	else
		puts("# DIR/key gets the router's token (never printed); DIR/tokens a fresh token of this run");
	net_create_cmd(&c, s->engine, "CLI_SANDBOX_BROKER_SUBNET", s->kb_net);
	engine_cmd_print(&c);
	broker_cmd(&c, s, words2, vol);
	engine_cmd_print(&c);
	connect_cmd(&c, s->engine, s->kb_net, s->kb_ct);
	engine_cmd_print(&c);
	return 0;
}

static bool engine_ok(const char *engine, const char *a, const char *b, const char *c3)
{
	struct engine_cmd c;
	char out[4096];

	engine_cmd_init(&c, engine);
	engine_cmd_add(&c, a, b, c3, (char *)NULL);
	return engine_cmd_run(&c, out, sizeof(out)) == 0;
}

/* The container's address on net, or false. */
static bool address(const char *engine, const char *ct, const char *net, char *out, size_t len)
{
	struct engine_cmd c;
	char fmt[400], buf[64];
	int dots = 0;

	snprintf(fmt, sizeof(fmt), "{{(index .NetworkSettings.Networks \"%s\").IPAddress}}", net);
	engine_cmd_init(&c, engine);
	engine_cmd_add(&c, "inspect", "-f", fmt, ct, (char *)NULL);
	if (spawn_capture(c.argv, buf, sizeof(buf), 30000) != 0)
		return false;
	for (const char *p = buf; *p; p++)
		dots += *p == '.';
	if (dots != 3 || strspn(buf, "0123456789.") != strlen(buf))
		return false;
	snprintf(out, len, "%s", buf);
	return true;
}

/* Until the router answers /health inside its container (CLI_SANDBOX_GATEWAY_WAIT seconds, 30 by default). */
static bool gw_answers(struct session *s)
{
	struct timespec pause = { 0, 200 * 1000 * 1000 };
	long max = strtol(env_or("CLI_SANDBOX_GATEWAY_WAIT", "30"), NULL, 10);
	char probe[200], out[256];

	snprintf(probe, sizeof(probe),
		 "fetch('http://127.0.0.1:%d/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))", GATEWAY_PORT);
	for (long i = 0; i < max * 5; i++) {
		struct engine_cmd c;

		engine_cmd_init(&c, s->engine);
		engine_cmd_add(&c, "exec", s->gw_ct, "node", "-e", probe, (char *)NULL);
		if (spawn_capture(c.argv, out, sizeof(out), 10000) == 0)
			return true;
		engine_cmd_init(&c, s->engine);
		engine_cmd_add(&c, "inspect", "-f", "{{.State.Running}}", s->gw_ct, (char *)NULL);
		if (spawn_capture(c.argv, out, sizeof(out), 10000) != 0 || strcmp(out, "true") != 0)
			return false;
		nanosleep(&pause, NULL);
	}
	return false;
}

static bool random_hex(char *out, size_t bytes)
{
	unsigned char raw[32];
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	bool ok = fd >= 0 && bytes <= sizeof(raw) && read(fd, raw, bytes) == (ssize_t)bytes;

	if (fd >= 0)
		close(fd);
	for (size_t i = 0; ok && i < bytes; i++)
		snprintf(out + 2 * i, 3, "%02x", raw[i]);
	explicit_bzero(raw, sizeof(raw));
	return ok;
}

/* A value single-quoted for the router's start shell ('set -a; . FILE'): the file is only assignments. */
static void put_quoted(FILE *f, const char *name, const char *v, size_t n)
{
	fprintf(f, "%s='", name);
	for (size_t i = 0; i < n; i++)
		if (v[i] == '\'')
			fputs("'\\''", f);
		else
			fputc(v[i], f);
	fputs("'\n", f);
}

static int gw_secrets_write(struct session *s)
{
	char path[4300];
	int fd;
	FILE *f;

	snprintf(s->secrets, sizeof(s->secrets), "%s/cli-sandbox-gateway.XXXXXX", s->base);
	if (!mkdtemp(s->secrets) || session_note(s->priv, "secrets", s->secrets) != 0)
		return ctl_usage("cannot write the gateway's secrets in %s: check the space on %s", s->secrets, s->base);
	/* 0644 in a 0700 directory: the router runs as the image's uid 1001, which owns neither;
	 * no other user of this host can enter the directory. */
	snprintf(path, sizeof(path), "%s/env", s->secrets);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0 || fchmod(fd, 0644) != 0 || !(f = fdopen(fd, "w"))) {
		if (fd >= 0)
			close(fd);
		return ctl_usage("cannot write the gateway's secrets in %s: check the space on %s", s->secrets, s->base);
	}
	put_quoted(f, "CLI_SANDBOX_GATEWAY_TOKEN", s->gw_token, strlen(s->gw_token));
	put_quoted(f, "CLI_SANDBOX_UPSTREAM_KEY", s->key, s->keylen);
	if (fclose(f) != 0)
		return ctl_usage("cannot write the gateway's secrets in %s: check the space on %s", s->secrets, s->base);
	return 0;
}

static int start_router(struct session *s, char *words)
{
	static char cfg[8192], vol[4400], mem[64], pids[32], out[4096];
	struct engine_cmd c;

	if (!random_hex(s->gw_token, 16))
		return ctl_usage("cannot read 16 random bytes from /dev/urandom for the gateway's token");
	net_create_cmd(&c, s->engine, gw_subnet_var(s), s->gw_net);
	if (engine_cmd_run(&c, out, sizeof(out)) != 0)
		return ctl_usage("cannot create the gateway's network %s: %s; remove a leftover with '%s network rm %s' or choose another %s",
				 s->gw_net, engine_last_line(out), s->engine, s->gw_net, gw_subnet_var(s));
	session_note(s->priv, "network", s->gw_net);
	if (gw_secrets_write(s) != 0 || gw_run_cmd(&c, s, words, mem, pids, cfg, vol, sizeof(cfg)) != 0)
		return CTL_EXIT_USAGE;
	if (engine_cmd_run(&c, out, sizeof(out)) != 0)
		return ctl_usage("the gateway did not start: %s; check '%s images %s' and CLI_SANDBOX_GATEWAY_UPSTREAM_NETWORK",
				 engine_last_line(out), s->engine, s->gw_image);
	connect_cmd(&c, s->engine, s->gw_net, s->gw_ct);
	if (engine_cmd_run(&c, out, sizeof(out)) != 0)
		return ctl_usage("cannot attach the gateway to %s: %s", s->gw_net, engine_last_line(out));
	if (!gw_answers(s) || !address(s->engine, s->gw_ct, s->gw_net, s->gw_ip, sizeof(s->gw_ip))) {
		engine_cmd_init(&c, s->engine);
		engine_cmd_add(&c, "logs", s->gw_ct, (char *)NULL);
		engine_cmd_run(&c, out, sizeof(out));
		return ctl_usage("the gateway did not answer within %s seconds (%s): check the endpoint with 'cli-sandbox doctor' and the image with 'sh image/build.sh --cli gateway'",
				 env_or("CLI_SANDBOX_GATEWAY_WAIT", "30"), *out ? engine_last_line(out) : "no output");
	}
	/* The router's process holds the values now; the mount keeps the file's memory until
	 * the container ends. */
	char env[4300];
	snprintf(env, sizeof(env), "%s/env", s->secrets);
	unlink(env);
	rmdir(s->secrets);
	names(s); /* the broker's upstream: the router's address */
	return 0;
}

static int start_broker(struct session *s, char *words)
{
	static char out[4096], vol[4400];
	struct cs_error err;
	struct engine_cmd c;
	char text[4096], hash[65];
	int p[2];

	if (broker_dir_new(s->priv, s->dir, sizeof(s->dir), &err) != 0 || session_note(s->priv, "dir", s->dir) != 0)
		return ctl_usage("cannot make the broker's directory in %s", s->priv);
	if (broker_config_text(s->api, s->up, s->models, "rewrite", s->key_form, text, sizeof(text), &err) != 0 ||
	    broker_config_write(s->dir, text, &err) != 0) {
		ctl_fail(&err);
		return ctl_usage("cannot configure the key broker (above)");
	}
	/* The broker's key: the endpoint's, or (translating) the router's token; through a pipe,
	 * as broker key reads it. */
	const char *k = s->translate ? s->gw_token : s->key;
	size_t kn = s->translate ? strlen(s->gw_token) : s->keylen;
	if (pipe(p) != 0 || write(p[1], k, kn) != (ssize_t)kn || close(p[1]) != 0 || broker_key_write(s->dir, p[0], &err) != 0) {
		close(p[0]);
		return ctl_usage("cannot write the key for the broker in %s", s->dir);
	}
	close(p[0]);
	if (!s->keep) {
		if (broker_token_add(s->dir, s->token, &err) != 0)
			return ctl_usage("cannot add the run's token in %s", s->dir);
		sha256_hex(s->token, strlen(s->token), hash);
		session_note(s->priv, "token", hash);
	}
	net_create_cmd(&c, s->engine, s->keep ? "CLI_SANDBOX_BROKER_UP_SUBNET" : "CLI_SANDBOX_BROKER_SUBNET", s->kb_net);
	if (engine_cmd_run(&c, out, sizeof(out)) != 0)
		return ctl_usage("cannot create the broker's network %s: %s; remove a leftover with '%s network rm %s' or choose another CLI_SANDBOX_BROKER_SUBNET",
				 s->kb_net, engine_last_line(out), s->engine, s->kb_net);
	session_note(s->priv, "network", s->kb_net);
	broker_cmd(&c, s, words, vol);
	if (engine_cmd_run(&c, out, sizeof(out)) != 0)
		return ctl_usage("the key broker did not start (%s): check '%s images %s'", engine_last_line(out), s->engine,
				 s->broker_image);
	connect_cmd(&c, s->engine, s->kb_net, s->kb_ct);
	if (engine_cmd_run(&c, out, sizeof(out)) != 0)
		return ctl_usage("cannot attach the key broker to %s: %s", s->kb_net, engine_last_line(out));
	if (!broker_listens(s->engine, s->kb_ct)) {
		engine_cmd_init(&c, s->engine);
		engine_cmd_add(&c, "logs", s->kb_ct, (char *)NULL);
		engine_cmd_run(&c, out, sizeof(out));
		return ctl_usage("the key broker did not listen within 10 seconds (%s): check the image with 'sh image/build.sh --cli broker'",
				 engine_last_line(out));
	}
	if (!address(s->engine, s->kb_ct, s->kb_net, s->ip, sizeof(s->ip)))
		return ctl_usage("cannot learn the key broker's address on %s", s->kb_net);
	return 0;
}

static int read_key(struct session *s)
{
	ssize_t r;

	if (!s->key_var && !s->router_token)
		return 0;
	while ((r = read(STDIN_FILENO, s->key + s->keylen, sizeof(s->key) - s->keylen)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || (s->keylen += (size_t)r) == sizeof(s->key))
			return ctl_usage("the key in $%s cannot be read or is over 8 KiB: set the variable to the key alone",
					 s->key_var ? s->key_var : "the router's state");
	}
	if (memchr(s->key, '\n', s->keylen) || memchr(s->key, '\0', s->keylen))
		return ctl_usage("the key in $%s has a line break: set the variable to the key alone", s->key_var ? s->key_var : "the router's state");
	return 0;
}

static int start_body(struct session *s)
{
	static char words1[4096], words2[4096];
	int rc;

	if (!engine_ok(s->engine, "image", "inspect", s->broker_image))
		return ctl_usage("the key broker's image %s is not present in %s: build it with 'sh image/build.sh --cli broker' (or set CLI_SANDBOX_BROKER_IMAGE; --keys-in puts the key in the sandbox instead)",
				 s->broker_image, s->engine);
	if (engine_ok(s->engine, "inspect", s->kb_ct, NULL))
		return ctl_usage("a container named %s already exists: remove it with '%s rm -f %s'", s->kb_ct, s->engine, s->kb_ct);
	if (s->translate && !engine_ok(s->engine, "image", "inspect", s->gw_image))
		return ctl_usage("the gateway's image %s is not present in %s: build it with 'sh image/build.sh --cli gateway' (or set CLI_SANDBOX_GATEWAY_IMAGE)",
				 s->gw_image, s->engine);
	if (s->translate && engine_ok(s->engine, "inspect", s->gw_ct, NULL))
		return ctl_usage("a container named %s already exists: stop it with 'cli-sandbox down' (or '%s rm -f %s')", s->gw_ct, s->engine,
				 s->gw_ct);
	if (!memory_base(s->base, sizeof(s->base)))
		return ctl_usage("no memory-backed directory for the key broker (XDG_RUNTIME_DIR or /dev/shm on tmpfs): mount one, or pass --keys-in to put the key in the sandbox");
	/* A private directory (0700, a random name) on memory holds the broker's: nobody else on
	 * this host can enter it; the broker reads its directory through its mount. */
	snprintf(s->priv, sizeof(s->priv), s->keep ? "%s/cli-sandbox-session-up.XXXXXX" : "%s/cli-sandbox-session.XXXXXX", s->base);
	if (!mkdtemp(s->priv))
		return ctl_usage("cannot create a private directory in %s: check that it is writable by you", s->base);
	/* What the end removes, written before it is made (the containers' names are this run's). */
	session_note(s->priv, "engine", s->engine);
	for (int i = 0; i < s->nfirst; i++)
		session_note(s->priv, "first", s->first[i]);
	if (s->translate)
		session_note(s->priv, "container", s->gw_ct);
	if (session_note(s->priv, "container", s->kb_ct) != 0) {
		session_end(s->priv, NULL, 0, false);
		return ctl_usage("cannot write %s/session: check the space on %s", s->priv, s->base);
	}
	/* The guardian before anything runs (and before the key is read: it holds no copy); a
	 * kept broker (up's) has none: down ends it. */
	if (!s->keep)
		session_guard(s->priv, atoi(s->id));
	if (read_key(s) != 0 || (!s->translate && s->keylen == 0 &&
				 ctl_usage("the key broker has no key to hold: set $%s, or pass --keys-in",
					   s->key_var ? s->key_var : "the endpoint's key-env"))) {
		session_end(s->priv, NULL, 0, false);
		return CTL_EXIT_USAGE;
	}
	snprintf(words1, sizeof(words1), "%s", env_or("CLI_SANDBOX_ENGINE_ARGS", ""));
	snprintf(words2, sizeof(words2), "%s", words1);
	rc = s->translate ? start_router(s, words1) : 0;
	if (rc == 0)
		rc = start_broker(s, words2);
	explicit_bzero(s->key, sizeof(s->key));
	explicit_bzero(s->gw_token, sizeof(s->gw_token));
	if (rc != 0) {
		session_end(s->priv, NULL, 0, false);
		return rc;
	}
	char url[200];
	snprintf(url, sizeof(url), "http://%s:%d%s", s->ip, BROKER_PORT, s->suffix);
	session_note(s->priv, "url", url);
	session_note(s->priv, "broker_network", s->kb_net);
	if (s->translate) {
		/* ping's direct check runs in the router's container; status and doctor read it */
		session_note(s->priv, "router", s->gw_ct);
		session_note(s->priv, "router_ip", s->gw_ip);
	}
	if (s->keep) {
		/* what a run must share to join this broker (session join) */
		session_note(s->priv, "api", s->api);
		session_note(s->priv, "form", s->key_form);
		session_note(s->priv, "mode", s->translate || s->router_token ? "translate" : "direct");
		session_note(s->priv, "models", s->models);
		if (session_record_write(s->record, s->priv) != 0) {
			session_end(s->priv, NULL, 0, false);
			return ctl_usage("cannot write %s: check its permissions", s->record);
		}
	}
	printf("session=%s\nnetwork=%s\nurl=%s\n", s->priv, s->kb_net, url);
	if (!s->keep)
		printf("token=%s\n", s->token);
	if (s->translate)
		printf("router=%s\n", s->gw_ct);
	explicit_bzero(s->token, sizeof(s->token));
	return 0;
}

/* up's start (--keep) has no guardian: a Ctrl-C, TERM or HUP while it runs is held until it has
 * finished (the engine commands it runs hold it too: they inherit the mask), then what it made
 * is ended and its record removed, so that an interrupted 'up' leaves nothing running. */
static int start(struct session *s)
{
	const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	sigset_t stop, pending;
	int rc;

	if (!s->keep)
		return start_body(s);
	sigemptyset(&stop);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&stop, sigs[i]);
	sigprocmask(SIG_BLOCK, &stop, NULL);
	rc = start_body(s);
	sigemptyset(&pending);
	sigpending(&pending);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigismember(&pending, sigs[i])) {
			if (rc == 0) {
				session_end(s->priv, NULL, 0, false);
				unlink(s->record);
			}
			fprintf(stderr, "cli-sandbox-ctl: error: 'up' was interrupted, and what it had started is removed: run it again to keep the key broker up\n");
			return 128 + sigs[i];
		}
	sigprocmask(SIG_UNBLOCK, &stop, NULL);
	return rc;
}

int cmd_session(int argc, char **argv)
{
	static struct session s;
	const char *sub = argc > 1 ? argv[1] : "";

	if (ctl_help(argc, argv, session_help))
		return 0;
	if (strcmp(sub, "start") == 0) {
		if (parse(&s, argc - 2, argv + 2) != 0)
			return CTL_EXIT_USAGE;
		names(&s);
		return s.dry ? dry_run(&s) : start(&s);
	}
	if (strcmp(sub, "join") == 0)
		return session_join(argc - 2, argv + 2);
	if (strcmp(sub, "down") == 0 && argc == 4 && strcmp(argv[2], "--record") == 0)
		return session_down(argv[3]);
	if (strcmp(sub, "gateway-config") == 0 && argc == 6) {
		char *json = gateway_config_json(argv[2], argv[3], argv[4], strcmp(argv[5], "keyed") == 0);

		if (!json)
			return ctl_usage("session: the router's configuration cannot be built: check the URL and the model");
		puts(json);
		free(json);
		return 0;
	}
	if (strcmp(sub, "end") == 0 && argc >= 3) {
		char *extra[16];
		int n = 0;

		for (int i = 3; i < argc; i++) {
			if (strcmp(argv[i], "--container") != 0 || i + 1 >= argc || n == 16)
				return ctl_usage("session end: %s: give ID [--container NAME]...", argv[i]);
			extra[n++] = argv[++i];
		}
		/* Out of the terminal's process group first: a Ctrl-C pressed once more after the
		 * CLI has quit reaches that whole group, and podman, which handles SIGINT even when
		 * it was started with it ignored, exits 1 at it, half-way through an rm (the broker
		 * was left running: tests/image/first_run.sh, codex's TUI, 3 runs in 3). */
		setsid();
		return session_end(argv[2], extra, n, false);
	}
	fputs(session_help, stderr);
	return CTL_EXIT_USAGE;
}
