#include "hostctl/engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostctl/spawn.h"

bool engine_pick(char *out, size_t len, const char **why)
{
	const char *env = getenv("CLI_SANDBOX_ENGINE");
	char buf[256];
	char *docker_version[] = { "docker", "version", "--format", "{{.Server.Version}}", NULL };

	if (env && *env) {
		if (strcmp(env, "docker") != 0 && strcmp(env, "podman") != 0)
			return false;
		snprintf(out, len, "%s", env);
		*why = "CLI_SANDBOX_ENGINE";
		return true;
	}
	if (on_path("docker") && spawn_capture(docker_version, buf, sizeof(buf), 5000) == 0) {
		snprintf(out, len, "docker");
		*why = "docker's daemon answers";
		return true;
	}
	if (on_path("podman")) {
		snprintf(out, len, "podman");
		*why = on_path("docker") ? "docker's daemon does not answer, so podman" : "no docker, so podman";
		return true;
	}
	return false;
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
