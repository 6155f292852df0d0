/* quickstart: command lines to start with, filled in with what this host
 * has (its engine, its endpoints, the CLIs whose images exist, the key
 * variables that are set: named, never printed).  Every line runs as
 * printed; a value from a file is shell-quoted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cli_names.h"
#include "hostctl/cmds.h"
#include "hostctl/endpoint_file.h"
#include "hostctl/engine.h"
#include "hostctl/home.h"
#include "hostctl/plan.h"
#include "hostctl/shquote.h"

static const char help[] =
	"Usage: cli-sandbox-ctl quickstart [--json]\n"
	"Copy-pasteable command lines for the common flows, filled in with this host's engine,\n"
	"endpoints, the CLIs whose images exist and the key variables that are set (named only).\n";

static const char *const key_vars[] = { "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY", "GEMINI_API_KEY", NULL };

/* The runner's key broker image (host/lib/keys.sh), for the default image. */
static const char *broker_image(void)
{
	const char *b = getenv("CLI_SANDBOX_BROKER_IMAGE");
	return b && *b ? b : "localhost/cli-sandbox-broker:latest";
}

/* The runner's gateway image (host/lib/gateway.sh). */
static const char *gateway_image(void)
{
	const char *g = getenv("CLI_SANDBOX_GATEWAY_IMAGE");
	return g && *g ? g : "localhost/cli-sandbox-gateway:latest";
}

static void line(json_t *lines, bool json, const char *text)
{
	json_array_append_new(lines, json_string(text));
	if (!json)
		puts(text);
}

int cmd_quickstart(int argc, char **argv)
{
	char engine[16], buf[1024], path[4096], img[512], id[256], q[EP_NAME_MAX * 4 + 8];
	const char *why, *image = engine_image(), *clis[8];
	struct endpoints *eps = calloc(1, sizeof(*eps));
	struct cs_error err;
	size_t n_clis = 0;
	bool json, have_engine;
	json_t *o, *lines, *keys;

	if (!eps)
		return 71;
	if (ctl_help(argc, argv, help)) {
		free(eps);
		return 0;
	}
	json = ctl_take_json(&argc, argv);
	if (argc > 1) {
		free(eps);
		return ctl_usage("usage: cli-sandbox-ctl quickstart [--json]");
	}
	if (home_file("endpoints", path, sizeof(path), &err) != 0 || endpoints_load(path, eps, &err) != 0) {
		free(eps);
		return ctl_fail(&err);
	}
	o = json_object();
	lines = json_array();
	keys = json_array();
	have_engine = engine_pick(engine, sizeof(engine), &why);
	if (!have_engine) {
		line(lines, json, "# no container engine answers: install docker or podman (docs/host-script.md)");
	} else {
		snprintf(buf, sizeof(buf), "# engine: %s (%s)", engine, why);
		line(lines, json, buf);
		/* the CLIs whose own image (NAME:CLI) or the main image exists */
		for (const struct cs_cli_name *c = cs_cli_names; c->name && n_clis < 8; c++) {
			const char *colon = strrchr(image, ':'), *slash = strrchr(image, '/');
			size_t base = (colon && (!slash || colon > slash)) ? (size_t)(colon - image) : strlen(image);

			snprintf(img, sizeof(img), "%.*s:%s", (int)base, image, c->name);
			if (engine_image_id(engine, img, id, sizeof(id)))
				clis[n_clis++] = c->name;
		}
		if (n_clis == 0 && engine_image_id(engine, image, id, sizeof(id)))
			clis[n_clis++] = "claude";
		if (n_clis == 0)
			line(lines, json, "# no cli-sandbox image yet: build it with sh image/build.sh in the repository");
	}
	for (const char *const *k = key_vars; *k; k++)
		if (getenv(*k) && *getenv(*k))
			json_array_append_new(keys, json_string(*k));
	for (size_t i = 0; i < eps->n; i++)
		if (eps->e[i].key_env[0] && getenv(eps->e[i].key_env) && *getenv(eps->e[i].key_env))
			json_array_append_new(keys, json_string(eps->e[i].key_env));
	if (json_array_size(keys) > 0) {
		size_t used = (size_t)snprintf(buf, sizeof(buf), "# key variables set (their values stay out of this):");
		for (size_t i = 0; i < json_array_size(keys) && used < sizeof(buf); i++)
			used += (size_t)snprintf(buf + used, sizeof(buf) - used, " %s", json_string_value(json_array_get(keys, i)));
		line(lines, json, buf);
	} else {
		line(lines, json, "# no key variable is set: export ANTHROPIC_API_KEY (or your endpoint's) before a run");
	}
	line(lines, json, "cli-sandbox endpoints list");
	if (eps->n == 0)
		line(lines, json, "# add a model server: cli-sandbox endpoints add NAME URL [--key-env VAR]");
	for (size_t c = 0; c < n_clis; c++) {
		for (size_t i = 0; i < eps->n; i++) {
			struct plan p;

			if (plan_make(clis[c], &eps->e[i], false, &p) != 0)
				continue;
			sh_quote(eps->e[i].name, q, sizeof(q));
			/* the runner wants a key: the endpoint's variable, else the CLI's own */
			const char *kv = eps->e[i].key_env[0] ? eps->e[i].key_env : p.token_vars[0];
			if (kv && !(getenv(kv) && *getenv(kv))) {
				snprintf(buf, sizeof(buf), "# %s to %s needs its key: export %s first%s", clis[c], q, kv,
					 eps->e[i].key_env[0] ? "" : " (or add the endpoint again with --key-env VAR)");
				line(lines, json, buf);
				continue;
			}
			snprintf(buf, sizeof(buf), "cli-sandbox --engine %s --endpoint %s --dry-run %s", engine, q, clis[c]);
			line(lines, json, buf);
			/* translation runs in the gateway's image: a run needs it built */
			if (p.route == ROUTE_TRANSLATOR && !engine_image_id(engine, gateway_image(), id, sizeof(id))) {
				snprintf(buf, sizeof(buf), "# %s to %s needs the gateway's image: sh image/build.sh --cli gateway", clis[c], q);
				line(lines, json, buf);
				continue;
			}
			/* a key goes through the key broker, and so does translation: a run needs its
			 * image (the runner refuses without it rather than let the key in) */
			if ((p.route == ROUTE_BROKER || p.route == ROUTE_TRANSLATOR) &&
			    !engine_image_id(engine, broker_image(), id, sizeof(id))) {
				snprintf(buf, sizeof(buf), "# %s to %s needs the key broker's image: sh image/build.sh --cli broker", clis[c], q);
				line(lines, json, buf);
				continue;
			}
			snprintf(buf, sizeof(buf), "cli-sandbox --engine %s --endpoint %s %s", engine, q, clis[c]);
			line(lines, json, buf);
		}
		snprintf(buf, sizeof(buf), "cli-sandbox --engine %s --dry-run %s", engine, clis[c]);
		line(lines, json, buf);
	}
	json_object_set_new(o, "engine", have_engine ? json_string(engine) : json_null());
	json_object_set_new(o, "key_variables", keys);
	json_object_set_new(o, "lines", lines);
	free(eps);
	if (json)
		return ctl_print_json(o);
	json_decref(o);
	return 0;
}
