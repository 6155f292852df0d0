/* status: is everything in place to launch a CLI against the endpoint?
 * The endpoint's record, the engine, the CLI's image, the route the plan
 * gives (plan.h), the key broker's and the gateway's images where the route needs them, an `up`
 * gateway's container, and the endpoint reachable over TCP from this host.
 * It only reads: a stale `up` record is reported (missing "gateway"), not
 * removed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cli_names.h"
#include "hostctl/cmds.h"
#include "hostctl/endpoint_file.h"
#include "hostctl/engine.h"
#include "hostctl/home.h"
#include "hostctl/images.h"
#include "hostctl/plan.h"
#include "hostctl/reach.h"
#include "hostctl/session.h"

static const char help[] =
	"Usage: cli-sandbox-ctl status [--endpoint NAME] [--cli CLI] [--keys-in] [--json]\n"
	"Is everything in place to launch CLI (default claude) against the endpoint (default the\n"
	"selected one)? Its record, the engine, the CLI's image, the route its requests take, the\n"
	"key broker's and the gateway's images where the route needs them, an 'up' gateway, the endpoint reachable (TCP\n"
	"from this host).  READY, or what is missing; exit 1 when not ready.\n";

/* The CLI's own image (NAME:CLI beside NAME:latest, as image/build.sh --cli
 * makes it) when the engine has it, else the all-in-one (the runner's run_image). */
static void run_image(const char *engine, const char *cli, char *out, size_t len)
{
	char own[640], id[128];

	snprintf(out, len, "%s", engine_image());
	if (image_own(engine_image(), cli, own, sizeof(own)) && engine[0] && engine_image_id(engine, own, id, sizeof(id)))
		snprintf(out, len, "%s", own);
}

/* The gateway's and the key broker's images beside the image (images.h), as a run names them. */
static void gateway_image(char *out, size_t len)
{
	image_gateway(engine_image(), getenv("CLI_SANDBOX_GATEWAY_IMAGE"), out, len);
}

static void broker_image(char *out, size_t len)
{
	image_broker(engine_image(), getenv("CLI_SANDBOX_BROKER_IMAGE"), out, len);
}

/* The router 'up' keeps behind its broker (session.h; its record CLI_SANDBOX_HOME/broker/NAME):
 * its container's name, "?" for a stale record, "" when none runs for 'up'. */
static void up_record(const char *endpoint, char *container, size_t len)
{
	char path[4096], rel[EP_NAME_MAX + 16], ip[64];
	struct cs_error err;

	container[0] = '\0';
	snprintf(rel, sizeof(rel), "broker/%s", endpoint);
	if (home_file(rel, path, sizeof(path), &err) == 0 && session_up_router(path, container, len, ip, sizeof(ip)) == 2)
		snprintf(container, len, "?");
}

static int pick(const char *name, struct endpoint *ep, struct cs_error *err)
{
	char cur[EP_NAME_MAX + 2], path[4096];
	struct endpoints *eps;
	struct endpoint *e;
	int rc;

	if (!name) {
		home_current(cur, sizeof(cur));
		if (!cur[0])
			return cs_fail(err, CS_EXIT_CONFIG, "no endpoint selected: pass --endpoint NAME, or choose one with 'cli-sandbox endpoints use NAME'");
		name = cur;
	}
	if (home_file("endpoints", path, sizeof(path), err) != 0 || !(eps = calloc(1, sizeof(*eps))))
		return -1;
	rc = endpoints_load(path, eps, err);
	e = rc == 0 ? endpoints_find(eps, name) : NULL;
	if (e)
		*ep = *e;
	free(eps);
	if (rc == 0 && !e)  /* the name met the name rule: safe to print */
		return cs_fail(err, CS_EXIT_CONFIG, "no endpoint named '%s': see 'cli-sandbox endpoints list'", name);
	return rc;
}

int cmd_status(int argc, char **argv)
{
	const char *name = NULL, *cli = "claude", *why, *path = "unknown";
	char engine[16] = "", version[128], img[640], gw_img[640], br_img[640], id[128], container[256], missing[160] = "";
	bool json, keys_in = false, eng_ok, img_ok, gw_ok = false, gw_needed, gw_running = false, br_ok, br_needed, reach, ready;
	struct endpoint ep;
	struct cs_error err;
	struct plan p;
	json_t *o, *miss, *routes;

	if (ctl_help(argc, argv, help))
		return 0;
	json = ctl_take_json(&argc, argv);
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--keys-in") == 0)
			keys_in = true;
		else if (strcmp(argv[i], "--endpoint") == 0 && i + 1 < argc && valid_endpoint_name(argv[i + 1], strlen(argv[i + 1])))
			name = argv[++i];
		else if (strcmp(argv[i], "--cli") == 0 && i + 1 < argc && cs_cli_by_name(argv[i + 1]))
			cli = argv[++i];
		else
			return ctl_usage("usage: cli-sandbox status [--json] (the endpoint: --endpoint NAME; the CLI: --cli CLI)");
	}
	if (pick(name, &ep, &err) != 0)
		return ctl_fail(&err);
	if (!ep.type[0])
		strcat(missing, " config");
	eng_ok = engine_pick(engine, sizeof(engine), &why);
	if (eng_ok) {
		engine_version(engine, version, sizeof(version));
		eng_ok = version[0] != '\0';
	}
	if (!eng_ok)
		strcat(missing, " engine");
	run_image(eng_ok ? engine : "", cli, img, sizeof(img));
	img_ok = eng_ok && engine_image_id(engine, img, id, sizeof(id));
	if (!img_ok)
		strcat(missing, " image");
	if (ep.type[0] || ep.has_speaks) {
		path = plan_make(cli, &ep, keys_in, &p) == 0 ? route_word(p.route) : "refused";
		if (strcmp(path, "refused") == 0)
			strcat(missing, " path");
	}
	gateway_image(gw_img, sizeof(gw_img));
	gw_needed = strcmp(path, "translator") == 0;
	gw_ok = eng_ok && engine_image_id(engine, gw_img, id, sizeof(id));
	if (gw_needed && !gw_ok)
		strcat(missing, " gateway-image");
	/* a key's path and a translation go through the key broker: a run needs its image */
	broker_image(br_img, sizeof(br_img));
	br_needed = strcmp(path, "broker") == 0 || gw_needed;
	br_ok = eng_ok && engine_image_id(engine, br_img, id, sizeof(id));
	if (br_needed && !br_ok)
		strcat(missing, " broker-image");
	up_record(ep.name, container, sizeof(container));
	gw_running = container[0] && eng_ok && engine_running(engine, container);
	if (container[0] && !gw_running)
		strcat(missing, " gateway");
	reach = tcp_reachable(ep.url, 3000);
	if (!reach)
		strcat(missing, " endpoint");
	ready = missing[0] == '\0';
	if (json) {
		o = json_object();
		miss = json_array();
		routes = json_object();
		for (char *w = strtok(missing, " "); w; w = strtok(NULL, " "))
			json_array_append_new(miss, json_string(w));
		for (const struct cs_cli_name *c = cs_cli_names; (ep.type[0] || ep.has_speaks) && c->name; c++) {
			struct plan q;
			plan_make(c->name, &ep, keys_in, &q);
			json_object_set_new(routes, c->name, json_string(route_word(q.route)));
		}
		json_object_set_new(o, "ready", json_boolean(ready));
		json_object_set_new(o, "missing", miss);
		json_object_set_new(o, "cli", json_string(cli));
		json_object_set_new(o, "path", json_string(path));
		json_object_set_new(o, "routes", routes);
		json_object_set_new(o, "engine", json_pack("{s:s, s:b}", "name", engine, "answers", eng_ok));
		json_object_set_new(o, "image", json_pack("{s:s, s:b}", "name", img, "present", img_ok));
		json_object_set_new(o, "gateway", json_pack("{s:s, s:b, s:b, s:b}", "image", gw_img, "present", gw_ok, "needed", gw_needed, "running", gw_running));
		json_object_set_new(o, "broker", json_pack("{s:s, s:b, s:b}", "image", br_img, "present", br_ok, "needed", br_needed));
		json_object_set_new(o, "endpoint", json_pack("{s:s, s:s, s:s, s:b}", "name", ep.name, "url", ep.url, "type", ep.type[0] ? ep.type : "unknown", "reachable", reach));
		ctl_print_json(o);
		return ready ? 0 : 1;
	}
	printf("endpoint %s (%s, %s): %s\n", ep.name, ep.url, ep.type[0] ? ep.type : "no type", reach ? "reachable" : "NOT reachable");
	printf("%s's path: %s; engine %s: %s; image %s: %s\n", cli, path, engine[0] ? engine : "(none)", eng_ok ? "answers" : "does NOT answer", img,
	       img_ok ? "present" : "missing");
	printf("gateway image %s: %s%s; running (up): %s\n", gw_img, gw_ok ? "present" : "missing", gw_needed ? " (needed)" : "", gw_running ? "true" : "false");
	printf("key broker image %s: %s%s\n", br_img, br_ok ? "present" : "missing", br_needed ? " (needed)" : "");
	if (ready)
		puts("READY");
	else
		printf("NOT READY, missing:%s (see 'cli-sandbox doctor')\n", missing);
	return ready ? 0 : 1;
}
