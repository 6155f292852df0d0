/* The runner's engine, identity and socket decisions (engine_choice.h). */
#include <stdio.h>
#include <string.h>

#include "hostctl/engine_choice.h"

static bool set(const char *s)
{
	return s && *s;
}

enum docker_ask docker_how_to_ask(const struct docker_env *e, const char **path)
{
	*path = "/var/run/docker.sock";
	if (!set(e->docker_host)) {
		if (!set(e->docker_context) && !e->config_has_context)
			return e->is_socket(*path) ? DOCKER_ASK_SOCKET : DOCKER_NO_SOCKET;
		return DOCKER_ASK_CLIENT;  /* a context may point elsewhere */
	}
	if (strncmp(e->docker_host, "unix://", 7) != 0)
		return DOCKER_ASK_CLIENT;  /* tcp://, ssh://: the client's own business */
	*path = e->docker_host + 7;
	if (!e->is_socket(*path))
		return DOCKER_NO_SOCKET;
	/* DOCKER_CONTEXT wins over DOCKER_HOST in docker's client */
	return set(e->docker_context) ? DOCKER_ASK_CLIENT : DOCKER_ASK_SOCKET;
}

void engine_choose(bool docker_installed, bool docker_answers, const char *docker_why, bool podman_installed,
		   struct engine_choice *c)
{
	char docker[ENGINE_TEXT / 2];

	c->engine = NULL;
	c->why[0] = c->err[0] = '\0';
	if (docker_installed && docker_answers) {
		c->engine = "docker";
		snprintf(c->why, sizeof(c->why), "docker's daemon answers");
		return;
	}
	if (docker_installed)
		snprintf(docker, sizeof(docker), "docker's daemon does not answer (%.400s)", docker_why ? docker_why : "");
	else
		snprintf(docker, sizeof(docker), "docker is not installed");
	if (podman_installed) {
		c->engine = "podman";
		snprintf(c->why, sizeof(c->why), "%s, so podman (it needs no daemon)", docker);
		return;
	}
	snprintf(c->err, sizeof(c->err),
		 "no container engine answers: %s and podman is not installed; start docker's daemon (sudo systemctl start "
		 "docker) or install podman (sudo apt-get install podman)",
		 docker);
}

/* -1 when snprintf cut it */
static int put(size_t len, int n)
{
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int identity_plan(unsigned uid, unsigned gid, const char *engine, const char *cli, const struct cs_cli_name *row,
		  const char *conf, const char *home, struct identity *id)
{
	memset(id, 0, sizeof(*id));
	if (uid == 0) {
		/* Root with a rootful engine: the sandbox user can never be uid 0, so it stays
		 * the image's node (1000), and gets a folder of its own: never root's ~/.codex
		 * handed over. */
		id->sb_uid = id->sb_gid = 1000;
		id->state_for_sb = true;
		snprintf(id->own_note, sizeof(id->own_note),
			 "run as root with a rootful %s, the sandbox user is uid 1000 (the image's node, never root): files "
			 "the agent writes in the workspace belong to uid 1000, and the workspace must be writable by it; run "
			 "cli-sandbox as your own user to own them",
			 engine);
		return put(sizeof(id->state_host),
			   snprintf(id->state_host, sizeof(id->state_host), "%s/state/%s", conf, cli));
	}
	id->sb_uid = uid;
	id->sb_gid = gid;
	if (put(sizeof(id->state_host),
		snprintf(id->state_host, sizeof(id->state_host), "%s/%s", home, row->state_dir)) != 0)
		return -1;
	if (strcmp(engine, "podman") == 0) {
		/* Rootless podman: your uid:gid is the container's node (1000:1000). */
		snprintf(id->args[id->n_args++], sizeof(id->args[0]), "--userns=keep-id:uid=1000,gid=1000");
		return 0;
	}
	/* A rootful dockerd: the sandbox user is your uid:gid itself.  The init takes a uid
	 * the image's passwd lacks, with home /, so the CLI's state variable names the mount. */
	snprintf(id->args[id->n_args++], sizeof(id->args[0]), "-e");
	snprintf(id->args[id->n_args++], sizeof(id->args[0]), "CLI_SANDBOX_USER=%u:%u", uid, gid);
	if (uid != 1000 && *row->state_var) {
		snprintf(id->args[id->n_args++], sizeof(id->args[0]), "-e");
		if (strcmp(row->state_sub, ".") == 0)
			snprintf(id->args[id->n_args++], sizeof(id->args[0]), "%s=/home/node/%s", row->state_var, row->state_dir);
		else
			snprintf(id->args[id->n_args++], sizeof(id->args[0]), "%s=/home/node/%s/%s", row->state_var,
				 row->state_dir, row->state_sub);
	}
	return 0;
}

int engine_socket(const char *engine, unsigned uid, const char *cs_socket, const char *docker_host,
		  const char *xdg_runtime_dir, char *out, size_t len, char *err, size_t errlen)
{
	int n;

	if (set(cs_socket))
		n = snprintf(out, len, "%s", cs_socket);
	else if (strcmp(engine, "docker") == 0) {
		if (!set(docker_host))
			n = snprintf(out, len, "/var/run/docker.sock");
		else if (strncmp(docker_host, "unix://", 7) == 0)
			n = snprintf(out, len, "%s", docker_host + 7);
		else {
			snprintf(err, errlen,
				 "DOCKER_HOST=%s is not a unix socket: set CLI_SANDBOX_DOCKER_SOCKET to the socket's path",
				 docker_host);
			return -1;
		}
	} else if (uid == 0)
		n = snprintf(out, len, "/run/podman/podman.sock");
	else if (set(xdg_runtime_dir))
		n = snprintf(out, len, "%s/podman/podman.sock", xdg_runtime_dir);
	else
		n = snprintf(out, len, "/run/user/%u/podman/podman.sock", uid);
	if (put(len, n) != 0) {
		snprintf(err, errlen, "the engine's socket path is too long: set CLI_SANDBOX_DOCKER_SOCKET to a shorter path");
		return -1;
	}
	return 0;
}
