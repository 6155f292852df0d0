#include "hostctl/engine.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hostctl/spawn.h"

/* DOCKER_CONFIG's (or ~/.docker's) config.json names a context: read as the
 * runner's grep -qs '"currentContext"' read it. */
static bool config_has_context(void)
{
	const char *dir = getenv("DOCKER_CONFIG"), *home = getenv("HOME");
	char path[4096], buf[65536];
	size_t n;
	FILE *f;
	struct stat st;

	if (dir && *dir)
		snprintf(path, sizeof(path), "%s/config.json", dir);
	else
		snprintf(path, sizeof(path), "%s/.docker/config.json", home ? home : "");
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || !(f = fopen(path, "re")))
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return memmem(buf, n, "\"currentContext\"", 16) != NULL;
}

static bool is_socket(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISSOCK(st.st_mode);
}

static size_t discard(char *p, size_t size, size_t n, void *u)
{
	(void)p;
	(void)u;
	return size * n;
}

/* GET /_ping on the daemon's socket (libcurl, no client started: docker's
 * client takes 20 ms or more to say the same).  The reasons are docker's
 * client's own words for the same failures. */
static bool ping_socket(const char *path, char *why, size_t len)
{
	CURL *c;
	CURLcode rc;
	long status = 0;

	if (access(path, R_OK | W_OK) != 0) {
		snprintf(why, len, "permission denied while trying to connect to the Docker daemon socket at unix://%s", path);
		return false;
	}
	if (!(c = curl_easy_init())) {
		snprintf(why, len, "cannot ask the daemon at unix://%s (libcurl does not start)", path);
		return false;
	}
	curl_easy_setopt(c, CURLOPT_UNIX_SOCKET_PATH, path);
	curl_easy_setopt(c, CURLOPT_URL, "http://localhost/_ping");
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 3000L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 5000L);
	rc = curl_easy_perform(c);
	if (rc == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_cleanup(c);
	if (rc == CURLE_OK && status == 200)
		return true;
	if (rc == CURLE_OK)
		snprintf(why, len, "the daemon at unix://%s answered HTTP %ld to /_ping", path, status);
	else
		snprintf(why, len, "Cannot connect to the Docker daemon at unix://%s. Is the docker daemon running?", path);
	return false;
}

bool docker_answers(char *why, size_t len)
{
	struct docker_env e = { getenv("DOCKER_HOST"), getenv("DOCKER_CONTEXT"), false, is_socket };
	const char *path;
	char out[4096];
	char *client[] = { "docker", "version", "--format", "{{.Server.Version}}", NULL };
	enum docker_ask how;

	why[0] = '\0';
	/* only without DOCKER_HOST and DOCKER_CONTEXT does the config decide (a file read) */
	if ((!e.docker_host || !*e.docker_host) && (!e.docker_context || !*e.docker_context))
		e.config_has_context = config_has_context();
	how = docker_how_to_ask(&e, &path);
	if (how == DOCKER_NO_SOCKET) {
		snprintf(why, len, "no daemon socket at %s", path);
		return false;
	}
	if (how == DOCKER_ASK_SOCKET)
		return ping_socket(path, why, len);
	/* a context or a remote daemon: docker's client, plain (no
	 * CLI_SANDBOX_ENGINE_GLOBAL_ARGS: they are written for the engine chosen) */
	if (spawn_capture_all(client, out, sizeof(out), 10000) == 0)
		return true;
	{
		char *last = strrchr(out, '\n');

		snprintf(why, len, "%s", last ? last + 1 : out);
	}
	return false;
}

void engine_choose_here(struct engine_choice *c)
{
	char why[1024] = "";
	bool docker = on_path("docker");
	bool answers = docker && docker_answers(why, sizeof(why));

	engine_choose(docker, answers, why, !answers && on_path("podman"), c);
}

bool engine_pick(char *out, size_t len, const char **why)
{
	const char *env = getenv("CLI_SANDBOX_ENGINE");
	static struct engine_choice c;

	if (env && *env) {
		if (strcmp(env, "docker") != 0 && strcmp(env, "podman") != 0)
			return false;
		snprintf(out, len, "%s", env);
		*why = "CLI_SANDBOX_ENGINE";
		return true;
	}
	/* the runner's choice and reasons (engine_choice.h) */
	engine_choose_here(&c);
	if (!c.engine)
		return false;
	snprintf(out, len, "%s", c.engine);
	*why = c.why;
	return true;
}

void engine_version(const char *engine, char *out, size_t len)
{
	char *argv[] = { (char *)engine, "version", "--format",
			 strcmp(engine, "podman") == 0 ? "{{.Client.Version}}" : "{{.Server.Version}}", NULL };

	if (spawn_capture(argv, out, len, 10000) != 0)
		out[0] = '\0';
}

const char *engine_image(void)
{
	const char *i = getenv("CLI_SANDBOX_IMAGE");
	return i && *i ? i : "localhost/cli-sandbox:latest";
}

bool engine_image_id(const char *engine, const char *image, char *out, size_t len)
{
	char *argv[] = { (char *)engine, "image", "inspect", "--format", "{{.Id}}", (char *)image, NULL };

	return spawn_capture(argv, out, len, 10000) == 0 && out[0];
}

bool engine_image_digest(const char *engine, const char *image, char *out, size_t len)
{
	char *argv[] = { (char *)engine, "image", "inspect", "--format",
			 strcmp(engine, "podman") == 0 ? "{{.Digest}}" : "{{if .RepoDigests}}{{index .RepoDigests 0}}{{end}}",
			 (char *)image, NULL };
	char *at;

	if (spawn_capture(argv, out, len, 10000) != 0 || !out[0])
		return false;
	at = strchr(out, '@');  /* docker's NAME@sha256:... */
	if (at)
		memmove(out, at + 1, strlen(at));
	return strncmp(out, "sha256:", 7) == 0;
}

bool engine_init_version(const char *engine, const char *image, char *out, size_t len)
{
	/* The runner's CLI_SANDBOX_ENGINE_ARGS (words after 'run', split on
	 * blanks as the runner splits them, never evaluated) come along: some
	 * hosts need them for any run (podman's --runtime, --ulimit). */
	char *argv[64], *extra = NULL, *save = NULL;
	const char *env = getenv("CLI_SANDBOX_ENGINE_ARGS");
	int n = 0, rc;

	argv[n++] = (char *)engine;
	argv[n++] = "run";
	argv[n++] = "--rm";
	argv[n++] = "--network";
	argv[n++] = "none";
	if (env && (extra = strdup(env)))
		for (char *w = strtok_r(extra, " \t\n", &save); w && n < 56; w = strtok_r(NULL, " \t\n", &save))
			argv[n++] = w;
	argv[n++] = "--entrypoint";
	argv[n++] = "/usr/local/sbin/cli-sandbox-init";
	argv[n++] = (char *)image;
	argv[n++] = "--version";
	argv[n] = NULL;
	rc = spawn_capture(argv, out, len, 60000);
	free(extra);
	out[strcspn(out, "\n")] = '\0';
	return rc == 0 && out[0];
}

bool engine_running(const char *engine, const char *container)
{
	char *argv[] = { (char *)engine, "inspect", "--format", "{{.State.Running}}", (char *)container, NULL };
	char out[64];

	return spawn_capture(argv, out, sizeof(out), 10000) == 0 && strcmp(out, "true") == 0;
}
