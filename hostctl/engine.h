/* The container engine, asked as the runner would pick it: an argv array
 * for every question, never a shell, each bounded by a timeout. */
#ifndef CLI_SANDBOX_HOSTCTL_ENGINE_H
#define CLI_SANDBOX_HOSTCTL_ENGINE_H

#include <stdbool.h>
#include <stddef.h>

#include "hostctl/engine_choice.h"

/* Whether docker's daemon answers: on its unix socket (GET /_ping, no
 * client started) when DOCKER_HOST, DOCKER_CONTEXT and the client's
 * config.json leave it local; else docker's client (version).  why: docker's
 * words when it does not (engine_choice.h, docker_how_to_ask). */
bool docker_answers(char *why, size_t len);
/* The runner's choice on this host: docker when its daemon answers, else podman when installed. */
void engine_choose_here(struct engine_choice *c);
/* CLI_SANDBOX_ENGINE (docker or podman), else docker when its daemon
 * answers, else podman when installed.  why says which rule chose it. */
bool engine_pick(char *out, size_t len, const char **why);
/* The engine's version ("" when it does not answer). */
void engine_version(const char *engine, char *out, size_t len);
/* CLI_SANDBOX_IMAGE, else localhost/cli-sandbox:latest. */
const char *engine_image(void);
/* The image's ID (sha256:...) into out; false when the engine has no such image. */
bool engine_image_id(const char *engine, const char *image, char *out, size_t len);
/* The image's manifest digest (podman's .Digest, docker's first RepoDigest)
 * into out; false when it has none (a docker image never pushed nor pulled). */
bool engine_image_digest(const char *engine, const char *image, char *out, size_t len);
/* The container (a name or ID) exists and runs. */
bool engine_running(const char *engine, const char *container);
/* The image's init's --version, run with no network (first line); false when it does not run. */
bool engine_init_version(const char *engine, const char *image, char *out, size_t len);

#endif
