/* Which engine a run uses, who the sandbox user is on this host, and the
 * engine's API socket: the runner's decisions (host/cli-sandbox asked
 * them of its shell before), as pure functions of what the caller read
 * (the environment, whether a path is a socket), so that table tests hold
 * them.  cmd_runner.c and engine.c ask the daemon; docs/host-script.md,
 * "Which engine" and "Who owns what". */
#ifndef CLI_SANDBOX_HOSTCTL_ENGINE_CHOICE_H
#define CLI_SANDBOX_HOSTCTL_ENGINE_CHOICE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/cli_names.h"

/* What decides how docker's daemon is asked. */
struct docker_env {
	const char *docker_host;     /* DOCKER_HOST, NULL or "" when unset */
	const char *docker_context;  /* DOCKER_CONTEXT */
	bool config_has_context;     /* the client's config.json names a "currentContext" */
	bool (*is_socket)(const char *path);
};

enum docker_ask {
	DOCKER_NO_SOCKET,   /* a local daemon whose socket is not there: it cannot answer */
	DOCKER_ASK_SOCKET,  /* ask the daemon on its unix socket (no client started) */
	DOCKER_ASK_CLIENT,  /* a context or a remote DOCKER_HOST: only docker's client knows */
};

/* How to ask; *path is the socket for the first two. */
enum docker_ask docker_how_to_ask(const struct docker_env *e, const char **path);

#define ENGINE_TEXT 1024

struct engine_choice {
	const char *engine;      /* docker, podman, or NULL when none answers */
	char why[ENGINE_TEXT];   /* the reason it was chosen */
	char err[ENGINE_TEXT];   /* NULL engine: one line naming both engines and how to get each going */
};

/* Docker when installed and its daemon answers, else podman when installed
 * (it needs no daemon); docker_why: why docker's daemon did not answer. */
void engine_choose(bool docker_installed, bool docker_answers, const char *docker_why, bool podman_installed,
		   struct engine_choice *c);

#define IDENTITY_ARGS 4

/* The sandbox user's identity on this host, from the invoking uid and gid. */
struct identity {
	unsigned sb_uid, sb_gid;       /* the owner of what the agent writes */
	bool state_for_sb;             /* the state folder is the sandbox's own (made under the config) */
	char state_host[4096];         /* the host folder mounted as the CLI's state folder */
	char own_note[1024];           /* "" when what the agent writes is the person's */
	int n_args;                    /* the engine words that give the sandbox user that identity */
	char args[IDENTITY_ARGS][512];
};

/* conf: CLI_SANDBOX_HOME or $HOME/.config/cli-sandbox; home: $HOME.  -1
 * when a path does not fit. */
int identity_plan(unsigned uid, unsigned gid, const char *engine, const char *cli, const struct cs_cli_name *row,
		  const char *conf, const char *home, struct identity *id);

/* The engine's API socket on this host (--docker-socket): CLI_SANDBOX_DOCKER_SOCKET,
 * else docker's from DOCKER_HOST, else podman's (root's or the user's).
 * -1 with the error line in err when DOCKER_HOST is not a unix socket. */
int engine_socket(const char *engine, unsigned uid, const char *cs_socket, const char *docker_host,
		  const char *xdg_runtime_dir, char *out, size_t len, char *err, size_t errlen);

#endif
