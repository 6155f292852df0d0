/* version, --version: this program's version and commit (baked in at
 * build time), and for the images that exist here their ID and their
 * init's own --version, read by running the init with no network. */
#include <stdio.h>
#include <string.h>

#include "base/cli_names.h"
#include "hostctl/cmds.h"
#include "hostctl/engine.h"

static const char help[] =
	"Usage: cli-sandbox-ctl version [--short] [--json]   (also: --version)\n"
	"This program's version and the commit it was built from; with an engine, each image\n"
	"of cli-sandbox that exists (CLI_SANDBOX_IMAGE and its per-CLI NAME:CLI images): its ID\n"
	"and the version of the init inside it (the image's init run with --version, no network).\n"
	"--short: only the first line, without asking the engine.\n";

#ifndef CLI_SANDBOX_COMMIT
#define CLI_SANDBOX_COMMIT "unknown"
#endif

/* NAME:latest's per-CLI sibling NAME:cli. */
static void sibling(const char *image, const char *cli, char *out, size_t len)
{
	const char *colon = strrchr(image, ':'), *slash = strrchr(image, '/');
	size_t base = (colon && (!slash || colon > slash)) ? (size_t)(colon - image) : strlen(image);

	snprintf(out, len, "%.*s:%s", (int)base, image, cli);
}

int cmd_version(int argc, char **argv)
{
	char engine[16] = "", id[256], digest[256], init[512], name[512], seen_id[8][256], seen_init[8][512];
	int n_seen = 0;
	const char *why = NULL, *image = engine_image();
	bool json, short_only = false, have_engine;
	json_t *o, *images;

	if (ctl_help(argc, argv, help))
		return 0;
	json = ctl_take_json(&argc, argv);
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--short") != 0)
			return ctl_usage("usage: cli-sandbox-ctl version [--short] [--json]");
		short_only = true;
	}
	o = json_object();
	images = json_array();
	json_object_set_new(o, "version", json_string(CLI_SANDBOX_VERSION));
	json_object_set_new(o, "commit", json_string(CLI_SANDBOX_COMMIT));
	if (!json)
		printf("cli-sandbox %s (commit %s)\n", CLI_SANDBOX_VERSION, CLI_SANDBOX_COMMIT);
	have_engine = !short_only && engine_pick(engine, sizeof(engine), &why);
	json_object_set_new(o, "engine", have_engine ? json_string(engine) : json_null());
	for (int i = -1; have_engine && cs_cli_names[i + 1].name; i++) {
		json_t *img;

		if (i < 0)
			snprintf(name, sizeof(name), "%s", image);
		else
			sibling(image, cs_cli_names[i].name, name, sizeof(name));
		if (!engine_image_id(engine, name, id, sizeof(id)))
			continue;
		/* one run per image ID: NAME:latest is often NAME:claude */
		init[0] = '\0';
		for (int k = 0; k < n_seen; k++)
			if (strcmp(seen_id[k], id) == 0)
				memcpy(init, seen_init[k], sizeof(init));
		if (!init[0] && !engine_init_version(engine, name, init, sizeof(init)))
			snprintf(init, sizeof(init), "(its init did not run: try cli-sandbox doctor; CLI_SANDBOX_ENGINE_ARGS is passed)");
		if (n_seen < 8) {
			snprintf(seen_id[n_seen], sizeof(seen_id[0]), "%s", id);
			snprintf(seen_init[n_seen++], sizeof(seen_init[0]), "%s", init);
		}
		if (!engine_image_digest(engine, name, digest, sizeof(digest)))
			digest[0] = '\0';
		img = json_object();
		json_object_set_new(img, "image", json_string(name));
		json_object_set_new(img, "id", json_string(id));
		json_object_set_new(img, "digest", digest[0] ? json_string(digest) : json_null());
		json_object_set_new(img, "init", json_string(init));
		json_array_append_new(images, img);
		if (!json)
			printf("  %s: id %.12s%s%.19s, %s\n", name, id, digest[0] ? ", digest " : "", digest, init);
	}
	if (!json && have_engine && json_array_size(images) == 0)
		printf("  no image of %s in %s: build one with image/build.sh\n", image, engine);
	json_object_set_new(o, "images", images);
	if (json)
		return ctl_print_json(o);
	json_decref(o);
	return 0;
}
