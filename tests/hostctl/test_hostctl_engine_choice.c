/* The runner's engine, identity and socket decisions (hostctl/engine_choice.h),
 * as the runner's shell made them before: how docker's daemon is asked
 * (never its client where the socket can say it), the engine chosen and its
 * reasons, the sandbox user's identity and its engine words, and the socket
 * of --docker-socket. */
#include <string.h>

#include "check.h"
#include "hostctl/engine_choice.h"

/* The sockets this table's host has. */
static bool fake_socket(const char *path)
{
	return strcmp(path, "/var/run/docker.sock") == 0 || strcmp(path, "/tmp/d.sock") == 0;
}

static bool no_socket(const char *path)
{
	(void)path;
	return false;
}

static void how_to_ask(void)
{
	static const struct {
		const char *host, *context;
		bool config_context, sockets;
		enum docker_ask how;
		const char *path;
	} t[] = {
		{ NULL, NULL, false, true, DOCKER_ASK_SOCKET, "/var/run/docker.sock" },
		{ "", "", false, true, DOCKER_ASK_SOCKET, "/var/run/docker.sock" },
		{ NULL, NULL, false, false, DOCKER_NO_SOCKET, "/var/run/docker.sock" },
		{ NULL, "desktop", false, false, DOCKER_ASK_CLIENT, NULL },
		{ NULL, NULL, true, false, DOCKER_ASK_CLIENT, NULL },
		{ NULL, NULL, true, true, DOCKER_ASK_CLIENT, NULL },
		{ "unix:///tmp/d.sock", NULL, false, true, DOCKER_ASK_SOCKET, "/tmp/d.sock" },
		{ "unix:///tmp/d.sock", NULL, true, true, DOCKER_ASK_SOCKET, "/tmp/d.sock" },  /* DOCKER_HOST over the config */
		{ "unix:///tmp/d.sock", "remote", false, true, DOCKER_ASK_CLIENT, NULL },     /* DOCKER_CONTEXT over DOCKER_HOST */
		{ "unix:///tmp/none.sock", NULL, false, true, DOCKER_NO_SOCKET, "/tmp/none.sock" },
		{ "unix:///tmp/none.sock", "remote", false, true, DOCKER_NO_SOCKET, "/tmp/none.sock" },
		{ "tcp://192.0.2.1:2375", NULL, false, true, DOCKER_ASK_CLIENT, NULL },
		{ "ssh://user@192.0.2.1", NULL, false, false, DOCKER_ASK_CLIENT, NULL },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct docker_env e = { t[i].host, t[i].context, t[i].config_context, t[i].sockets ? fake_socket : no_socket };
		const char *path = NULL;
		enum docker_ask how = docker_how_to_ask(&e, &path);

		CHECK(how == t[i].how && (!t[i].path || strcmp(path, t[i].path) == 0), "case %zu (DOCKER_HOST %s): %d %s", i,
		      t[i].host ? t[i].host : "unset", (int)how, path ? path : "");
	}
}

static void choose(void)
{
	struct engine_choice c;

	engine_choose(true, true, "", true, &c);
	CHECK(c.engine && strcmp(c.engine, "docker") == 0 && !c.err[0], "docker answers: docker");
	CHECK_STR(c.why, "docker's daemon answers");
	engine_choose(true, false, "no daemon socket at /var/run/docker.sock", true, &c);
	CHECK(c.engine && strcmp(c.engine, "podman") == 0, "docker does not answer, podman installed: podman");
	CHECK_STR(c.why, "docker's daemon does not answer (no daemon socket at /var/run/docker.sock), so podman (it needs no daemon)");
	engine_choose(false, false, "", true, &c);
	CHECK_STR(c.why, "docker is not installed, so podman (it needs no daemon)");
	engine_choose(true, false, "Cannot connect to the Docker daemon at unix:///x.sock. Is the docker daemon running?", false, &c);
	CHECK(!c.engine, "neither: none");
	CHECK_STR(c.err, "no container engine answers: docker's daemon does not answer (Cannot connect to the Docker daemon at "
			 "unix:///x.sock. Is the docker daemon running?) and podman is not installed; start docker's daemon (sudo "
			 "systemctl start docker) or install podman (sudo apt-get install podman)");
	engine_choose(false, false, NULL, false, &c);
	CHECK(!c.engine && strstr(c.err, "docker is not installed and podman is not installed") && !strchr(c.err, '\n'),
	      "nothing installed: %s", c.err);
}

static void identity(void)
{
	const struct cs_cli_name *codex = cs_cli_by_name("codex"), *claude = cs_cli_by_name("claude"),
				 *pi = cs_cli_by_name("pi");
	struct identity id;

	CHECK(identity_plan(0, 0, "docker", "codex", codex, "/root/.config/cli-sandbox", "/root", &id) == 0, "root");
	CHECK(id.sb_uid == 1000 && id.sb_gid == 1000 && id.state_for_sb && id.n_args == 0, "root: uid 1000, its own folder");
	CHECK_STR(id.state_host, "/root/.config/cli-sandbox/state/codex");
	CHECK(strstr(id.own_note, "run as root with a rootful docker, the sandbox user is uid 1000") != NULL, "root: %s", id.own_note);

	CHECK(identity_plan(1234, 100, "podman", "codex", codex, "/c", "/home/p", &id) == 0, "rootless podman");
	CHECK(id.sb_uid == 1234 && id.sb_gid == 100 && !id.state_for_sb && !id.own_note[0] && id.n_args == 1,
	      "rootless podman: the person's ids, one word");
	CHECK_STR(id.args[0], "--userns=keep-id:uid=1000,gid=1000");
	CHECK_STR(id.state_host, "/home/p/.codex");

	CHECK(identity_plan(1234, 100, "docker", "codex", codex, "/c", "/home/p", &id) == 0 && id.n_args == 4,
	      "dockerd as 1234: four words");
	CHECK(strcmp(id.args[0], "-e") == 0 && strcmp(id.args[1], "CLI_SANDBOX_USER=1234:100") == 0 &&
		      strcmp(id.args[2], "-e") == 0 && strcmp(id.args[3], "CODEX_HOME=/home/node/.codex") == 0,
	      "dockerd as 1234: %s %s %s %s", id.args[0], id.args[1], id.args[2], id.args[3]);
	CHECK(identity_plan(1234, 1234, "docker", "pi", pi, "/c", "/home/p", &id) == 0 && id.n_args == 4 &&
		      strcmp(id.args[3], "PI_CODING_AGENT_DIR=/home/node/.pi/agent") == 0,
	      "pi's part of its folder: %s", id.args[3]);
	CHECK(identity_plan(1000, 1000, "docker", "codex", codex, "/c", "/home/p", &id) == 0 && id.n_args == 2 &&
		      strcmp(id.args[1], "CLI_SANDBOX_USER=1000:1000") == 0,
	      "dockerd as 1000 (the image's node): no state variable");
	CHECK(identity_plan(1234, 1234, "docker", "claude", claude, "/c", "/home/p", &id) == 0,
	      "claude as 1234");
	CHECK_STR(id.state_host, "/home/p/.claude");
}

static void sockets(void)
{
	static const struct {
		const char *engine;
		unsigned uid;
		const char *cs, *docker_host, *xdg, *want;
	} t[] = {
		{ "docker", 1000, "/s/own.sock", "tcp://192.0.2.1:2375", NULL, "/s/own.sock" },
		{ "docker", 1000, NULL, NULL, NULL, "/var/run/docker.sock" },
		{ "docker", 1000, "", "unix:///tmp/d.sock", NULL, "/tmp/d.sock" },
		{ "podman", 0, NULL, "unix:///tmp/d.sock", "/run/user/0", "/run/podman/podman.sock" },
		{ "podman", 1234, NULL, NULL, "/run/user/1234", "/run/user/1234/podman/podman.sock" },
		{ "podman", 1234, NULL, NULL, "", "/run/user/1234/podman/podman.sock" },
		{ "podman", 1234, NULL, NULL, "/xdg", "/xdg/podman/podman.sock" },
	};
	char out[256], err[256];

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int rc = engine_socket(t[i].engine, t[i].uid, t[i].cs, t[i].docker_host, t[i].xdg, out, sizeof(out), err,
				       sizeof(err));

		CHECK(rc == 0 && strcmp(out, t[i].want) == 0, "case %zu: rc %d '%s'", i, rc, rc == 0 ? out : err);
	}
	CHECK(engine_socket("docker", 1000, NULL, "tcp://192.0.2.1:2375", NULL, out, sizeof(out), err, sizeof(err)) != 0,
	      "DOCKER_HOST tcp://: refused");
	CHECK_STR(err, "DOCKER_HOST=tcp://192.0.2.1:2375 is not a unix socket: set CLI_SANDBOX_DOCKER_SOCKET to the socket's path");
}

int main(void)
{
	how_to_ask();
	choose();
	identity();
	sockets();
	return check_done("hostctl engine choice");
}
