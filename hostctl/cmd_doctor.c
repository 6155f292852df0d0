/* doctor: is everything in place for a run, and what to do where not?
 * The runner (host/cli-sandbox) hands over what only it knows, having
 * decided it for the run itself: the engine it chose and why, the image,
 * the profile, the model URL and the address containers reach this host at,
 * the credential's presence (names, never a value), the workspace as the
 * sandbox user sees it, the identity note and the limits.  This program
 * asks the rest itself: the engine (an argv array, each question bounded),
 * the endpoint over TCP, the endpoint's path for the CLI (plan.h), the
 * images that path needs, an `up` gateway's container and an Ollama
 * endpoint's models.  It only reads: nothing is started, made or removed.
 * Every value a printed fix holds is shell-quoted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cli_names.h"
#include "hostctl/api.h"
#include "hostctl/cmds.h"
#include "hostctl/doctor_report.h"
#include "hostctl/endpoint_file.h"
#include "hostctl/home.h"
#include "hostctl/images.h"
#include "hostctl/ollama.h"
#include "hostctl/ollama_http.h"
#include "hostctl/plan.h"
#include "hostctl/probe.h"
#include "hostctl/reach.h"
#include "hostctl/session.h"
#include "hostctl/shquote.h"
#include "hostctl/spawn.h"

static const char help[] =
	"Usage: cli-sandbox-ctl doctor [--json] --cli CLI --image IMAGE --profile managed|interactive\n"
	"         [--engine ENGINE --engine-why WHY | --engine-error ERROR]\n"
	"         [--url URL [--host-url URL --host-addr ADDR | --host-error ERROR]] [--endpoint NAME] [--keys-in]\n"
	"         [--credential VARS | --credential-login FILE | --credential-error ERROR] [--credential-var VAR]\n"
	"         [--workspace DIR --writable yes|no --how HOW | --workspace-error ERROR]\n"
	"         --sandbox-user UID:GID [--ownership NOTE] --limits TEXT\n"
	"doctor's checks, for host/cli-sandbox doctor, which passes what it decided for the run\n"
	"(docs/hostctl.md).  One line a check (ok / FAIL with its fix), or one JSON object; exit 1\n"
	"when a check fails.\n";

/* The gateway's port in its container (host/lib/gateway.sh's GW_PORT). */
#define GATEWAY_PORT 3456
/* A URL with its host replaced, quoted words, a detail with both. */
#define TEXT_MAX 2048

struct doctor_args {
	const char *cli, *image, *profile;
	const char *engine, *engine_why, *engine_error;
	const char *url, *host_url, *host_addr, *host_error, *endpoint;
	bool keys_in;
	const char *cred_vars, *cred_login, *cred_error, *cred_var;
	const char *workspace, *writable, *how, *workspace_error;
	const char *sandbox_user, *ownership, *limits;
};

/* The engine with CLI_SANDBOX_ENGINE_GLOBAL_ARGS before the words (split on
 * blanks as the runner splits them, never evaluated), as the runner's eng. */
static int engine_ask(const char *engine, const char *const words[], char *out, size_t len, bool with_stderr)
{
	char *argv[48], *globals = NULL, *save = NULL;
	const char *env = getenv("CLI_SANDBOX_ENGINE_GLOBAL_ARGS");
	int n = 0, rc;

	argv[n++] = (char *)engine;
	if (env && (globals = strdup(env)))
		for (char *w = strtok_r(globals, " \t\n", &save); w && n < 32; w = strtok_r(NULL, " \t\n", &save))
			argv[n++] = w;
	for (int i = 0; words[i] && n < 47; i++)
		argv[n++] = (char *)words[i];
	argv[n] = NULL;
	rc = with_stderr ? spawn_capture_all(argv, out, len, 10000) : spawn_capture(argv, out, len, 10000);
	free(globals);
	return rc;
}

static bool engine_has_image(const char *engine, const char *image)
{
	const char *words[] = { "image", "inspect", image, NULL };
	char out[4096];

	return engine_ask(engine, words, out, sizeof(out), false) == 0;
}

static void quoted(const char *s, char *out, size_t len)
{
	if (!sh_quote(s, out, len))
		snprintf(out, len, "'(too long to show)'");
}

/* engine: the runner's choice, and whether it answers. */
static bool check_engine(struct doctor_report *r, const struct doctor_args *a)
{
	char d[TEXT_MAX], f[TEXT_MAX], out[8192];
	const char *words[] = { "version", NULL }, *last;

	if (!a->engine) {
		doctor_check(r, "engine", false, a->engine_error ? a->engine_error : "no container engine answers",
			     "start docker's daemon (sudo systemctl start docker), or install podman (sudo apt-get install podman)");
		return false;
	}
	if (!on_path(a->engine)) {
		snprintf(d, sizeof(d), "%s (%s) is not installed", a->engine, a->engine_why);
		snprintf(f, sizeof(f), "install %s, or choose the other engine with --engine", a->engine);
		doctor_check(r, "engine", false, d, f);
		return false;
	}
	if (engine_ask(a->engine, words, out, sizeof(out), true) == 0) {
		snprintf(d, sizeof(d), "%s answers (%s)", a->engine, a->engine_why);
		doctor_check(r, "engine", true, d, NULL);
		return true;
	}
	last = strrchr(out, '\n');
	snprintf(d, sizeof(d), "'%s version' failed (%s): %.512s", a->engine, a->engine_why, last ? last + 1 : out);
	snprintf(f, sizeof(f), "start %s (e.g. 'systemctl start %s'), or choose the other engine with --engine", a->engine, a->engine);
	doctor_check(r, "engine", false, d, f);
	return false;
}

/* image: the CLI's own image when the engine has it, else the one named. */
static bool check_image(struct doctor_report *r, const struct doctor_args *a, bool engine_ok)
{
	char own[640], d[TEXT_MAX];

	if (!engine_ok) {
		snprintf(d, sizeof(d), "cannot check %s: the engine does not answer", a->image);
		doctor_check(r, "image", false, d, "fix the engine first");
		return false;
	}
	if (image_own(a->image, a->cli, own, sizeof(own)) && engine_has_image(a->engine, own)) {
		snprintf(d, sizeof(d), "%s is present (%s's own image)", own, a->cli);
		doctor_check(r, "image", true, d, NULL);
		return true;
	}
	if (engine_has_image(a->engine, a->image)) {
		snprintf(d, sizeof(d), "%s is present", a->image);
		doctor_check(r, "image", true, d, NULL);
		return true;
	}
	snprintf(d, sizeof(d), "%s is not present in %s", a->image, a->engine);
	doctor_check(r, "image", false, d, "build it: host/cli-sandbox build");
	return false;
}

/* endpoint: the URL accepts TCP connections from here; for an endpoint on
 * this host, at the address containers use too, but only when that address
 * is this host's: a test never goes anywhere else. */
static void check_endpoint(struct doctor_report *r, const struct doctor_args *a, bool image_ok)
{
	char d[2 * TEXT_MAX], f[TEXT_MAX], as[TEXT_MAX] = ""; /* d holds a URL and as */
	bool ok, at_host = true;

	if (!a->url) {
		if (strcmp(a->profile, "managed") != 0) {
			doctor_check(r, "endpoint", true, "none set (interactive profile: optional)", NULL);
			return;
		}
		/* With the image there, the demo shows the sandbox at work before any endpoint. */
		snprintf(f, sizeof(f), "add and select one: cli-sandbox endpoints add NAME URL; cli-sandbox endpoints use NAME (or pass --managed URL)%s",
			 image_ok ? "; to see the sandbox work first, with no endpoint and no key: cli-sandbox demo" : "");
		doctor_check(r, "endpoint", false, "no model endpoint for the managed profile", f);
		return;
	}
	if (a->host_error) {
		snprintf(d, sizeof(d), "%s is on this host, but: %s", a->url, a->host_error);
		doctor_check(r, "endpoint", false, d, "set CLI_SANDBOX_HOST_ADDRESS");
		return;
	}
	ok = tcp_reachable(a->url, 3000);
	if (a->host_url && a->host_addr) {
		if (!addr_is_local(a->host_addr))
			snprintf(as, sizeof(as), " (containers use %s, not tested: %s is not up on this host yet)", a->host_url, a->host_addr);
		else {
			snprintf(as, sizeof(as), " (containers use %s)", a->host_url);
			at_host = !ok || tcp_reachable(a->host_url, 3000);
		}
	}
	if (ok && at_host) {
		snprintf(d, sizeof(d), "%s is reachable%s", a->url, as);
		doctor_check(r, "endpoint", true, d, NULL);
	} else if (ok) {
		snprintf(d, sizeof(d), "%s is reachable, but not as %s, where containers connect", a->url, a->host_url);
		snprintf(f, sizeof(f), "make the server listen on %s too, not only on 127.0.0.1 (e.g. OLLAMA_HOST=0.0.0.0 for Ollama)", a->host_addr);
		doctor_check(r, "endpoint", false, d, f);
	} else {
		snprintf(d, sizeof(d), "%s does not accept TCP connections within 3 seconds", a->url);
		doctor_check(r, "endpoint", false, d,
			     "start the model server, check the URL ('cli-sandbox endpoints list') and that no firewall blocks it");
	}
}

static void check_image_named(struct doctor_report *r, const char *check, const char *engine, bool engine_ok,
			      const char *image, const char *what, const char *fix)
{
	char d[TEXT_MAX];

	if (!engine_ok) {
		snprintf(d, sizeof(d), "cannot check %s: the engine does not answer", image);
		doctor_check(r, check, false, d, "fix the engine first");
	} else if (engine_has_image(engine, image)) {
		snprintf(d, sizeof(d), "%s is present", image);
		doctor_check(r, check, true, d, NULL);
	} else {
		snprintf(d, sizeof(d), "%s %s is not present in %s", what, image, engine);
		doctor_check(r, check, false, d, fix);
	}
}

static void check_broker_image(struct doctor_report *r, const struct doctor_args *a, bool engine_ok)
{
	char img[640];

	image_broker(a->image, getenv("CLI_SANDBOX_BROKER_IMAGE"), img, sizeof(img));
	check_image_named(r, "broker-image", a->engine, engine_ok, img, "the key broker's image",
			  "build it: sh image/build.sh --cli broker (or set CLI_SANDBOX_BROKER_IMAGE; --keys-in puts the key in the sandbox instead)");
}

/* The router 'up' keeps behind its broker (session.h; its record CLI_SANDBOX_HOME/broker/NAME):
 * its container and address; false when none runs for 'up' (no record, or up's broker
 * translates nothing); a stale record (its session gone) gives ct "". */
static bool up_record(const char *endpoint, char *path, size_t plen, char *ct, size_t clen, char *ip, size_t ilen)
{
	char rel[EP_NAME_MAX + 16];
	struct cs_error err;
	int r;

	ct[0] = ip[0] = '\0';
	snprintf(rel, sizeof(rel), "broker/%s", endpoint);
	if (home_file(rel, path, plen, &err) != 0)
		return false;
	r = session_up_router(path, ct, clen, ip, ilen);
	return r == 1 || r == 2;
}

static void check_gateway(struct doctor_report *r, const struct doctor_args *a, bool engine_ok, const char *qname)
{
	char img[640], path[4096], ct[512], ip[512], d[TEXT_MAX + 4096], f[TEXT_MAX], out[64];
	const char *words[] = { "inspect", "-f", "{{.State.Running}}", ct, NULL };

	image_gateway(a->image, getenv("CLI_SANDBOX_GATEWAY_IMAGE"), img, sizeof(img));
	check_image_named(r, "gateway-image", a->engine, engine_ok, img, "the gateway's image",
			  "build it: sh image/build.sh --cli gateway (or set CLI_SANDBOX_GATEWAY_IMAGE)");
	if (!up_record(a->endpoint, path, sizeof(path), ct, sizeof(ct), ip, sizeof(ip))) {
		snprintf(d, sizeof(d), "not up: each run starts one for itself and stops it after (a long-lived one: cli-sandbox --endpoint %s up)", qname);
		doctor_check(r, "gateway", true, d, NULL);
	} else if (engine_ok && ct[0] && engine_ask(a->engine, words, out, sizeof(out), false) == 0 && strcmp(out, "true") == 0) {
		snprintf(d, sizeof(d), "up: %s at %s:%d, behind the key broker 'up' keeps, which runs join", ct, ip, GATEWAY_PORT);
		doctor_check(r, "gateway", true, d, NULL);
	} else {
		if (ct[0])
			snprintf(d, sizeof(d), "stale record %s: its router %s is not running", path, ct);
		else
			snprintf(d, sizeof(d), "stale record %s: its session is gone (the machine restarted?)", path);
		snprintf(f, sizeof(f), "cli-sandbox --endpoint %s down (then up again for a long-lived gateway)", qname);
		doctor_check(r, "gateway", false, d, f);
	}
}

/* model: an Ollama endpoint's model is installed, when this host reaches it
 * (where only the gateway does, ping checks it from there). */
static void check_model(struct doctor_report *r, const struct endpoint *ep, const char *qname)
{
	static struct ollama_models models;
	char base[EP_URL_MAX + 1], d[TEXT_MAX], f[TEXT_MAX], qm[EP_MODEL_MAX * 4 + 8];
	struct http_answer ans = { 0 };
	struct cs_error err;
	bool has;

	probe_root(ep->url, base, sizeof(base));
	if (ollama_request(base, "/api/tags", NULL, &ans, &err) != 0 || ans.status != 200 ||
	    ollama_parse_tags(ans.body, ans.len, &models, &err) != 0) {
		free(ans.body);
		snprintf(d, sizeof(d), "%s not checked: Ollama at %s does not answer from this host (cli-sandbox ping checks it from the gateway)", ep->model, base);
		doctor_check(r, "model", true, d, NULL);
		return;
	}
	free(ans.body);
	has = ollama_models_has(&models, ep->model);
	snprintf(d, sizeof(d), "%s is %sinstalled on '%s'", ep->model, has ? "" : "not ", ep->name);
	quoted(ep->model, qm, sizeof(qm));
	snprintf(f, sizeof(f), "cli-sandbox --endpoint %s models pull %s (or choose another: models use M)", qname, qm);
	doctor_check(r, "model", has, d, f);
}

/* The endpoint's path for the CLI, for an endpoint whose APIs are known: the
 * plan (plan.h), the images and the `up` gateway it needs, the Ollama model.
 * Returns the route (ROUTE_REFUSED when none; -1 when not an endpoint's). */
static int check_path(struct doctor_report *r, const struct doctor_args *a, bool engine_ok)
{
	char file[4096], what[1024], speaks[128], d[TEXT_MAX * 2], f[TEXT_MAX], qname[EP_NAME_MAX * 4 + 8], key[128] = "";
	struct endpoints *eps = NULL;
	struct endpoint ep, *e = NULL;
	struct cs_error err;
	struct plan p;
	const char *val;

	if (!a->endpoint || home_file("endpoints", file, sizeof(file), &err) != 0 || !(eps = calloc(1, sizeof(*eps))))
		return -1;
	if (endpoints_load(file, eps, &err) == 0)
		e = endpoints_find(eps, a->endpoint);
	if (e)
		ep = *e;
	free(eps);
	if (!e || (!ep.type[0] && !ep.has_speaks))
		return -1;
	quoted(ep.name, qname, sizeof(qname));
	api_format_list(ep.has_speaks ? ep.speaks : default_speaks(ep.type), speaks, sizeof(speaks));
	snprintf(what, sizeof(what), "endpoint '%s' (%s, speaks %s%s%s)", ep.name, ep.type[0] ? ep.type : "no type",
		 speaks[0] ? speaks : "unknown", ep.model[0] ? ", model " : "", ep.model);
	if (ep.key_env[0])
		snprintf(key, sizeof(key), "$%s", ep.key_env);
	val = ep.key_env[0] ? getenv(ep.key_env) : NULL;
	if (plan_make(a->cli, &ep, a->keys_in, &p) != 0) {
		snprintf(d, sizeof(d), "%s against endpoint '%s' is refused before start: %s", a->cli, ep.name, p.reason);
		doctor_check(r, "path", false, d, p.fix[0] ? p.fix
			     : "do what the reason names (another CLI, another endpoint, or the variable exported); docs/gateway.md has the table of each CLI and endpoint type");
	} else if (ep.key_env[0] && (!val || !*val)) {
		snprintf(d, sizeof(d), "%s against endpoint '%s' is refused before start: it takes its key from %s, which is not set in this shell",
			 a->cli, ep.name, key);
		snprintf(f, sizeof(f), "export %s=... in the shell that runs cli-sandbox, or change the endpoint (cli-sandbox endpoints add %s URL --key-env VAR)",
			 ep.key_env, qname);
		doctor_check(r, "path", false, d, f);
		p.route = ROUTE_REFUSED;
	} else if (p.route == ROUTE_DIRECT) {
		snprintf(d, sizeof(d), "%s goes direct to %s%s%s%s", a->cli, what, key[0] ? ", the key from " : "", key,
			 key[0] ? " in the sandbox (--keys-in)" : "");
		doctor_check(r, "path", true, d, NULL);
	} else if (p.route == ROUTE_BROKER) {
		snprintf(d, sizeof(d), "%s goes to %s through the key broker: the sandbox gets a run's token%s%s%s", a->cli, what,
			 key[0] ? ", the broker alone holds " : "", key, "");
		doctor_check(r, "path", true, d, NULL);
		check_broker_image(r, a, engine_ok);
	} else {
		snprintf(d, sizeof(d), "%s goes through the gateway to %s (Anthropic Messages in, %s out), behind the key broker: the sandbox gets a run's token%s%s%s",
			 a->cli, what, api_word(p.upstream_api), key[0] ? ", the gateway alone holds " : "", key, "");
		doctor_check(r, "path", true, d, NULL);
		check_gateway(r, a, engine_ok, qname);
		check_broker_image(r, a, engine_ok);
	}
	if (strcmp(ep.type, "ollama") == 0 && ep.model[0])
		check_model(r, &ep, qname);
	return (int)p.route;
}

static void check_credential(struct doctor_report *r, const struct doctor_args *a, int route)
{
	char d[TEXT_MAX], f[TEXT_MAX];

	if (route == ROUTE_TRANSLATOR) {
		snprintf(d, sizeof(d), "through the gateway %s gets a run's token, none of your keys", a->cli);
		doctor_check(r, "credential", true, d, NULL);
	} else if (a->cred_vars) {
		snprintf(d, sizeof(d), "%s gets %s (set in this shell, passed in the credentials file)", a->cli, a->cred_vars);
		doctor_check(r, "credential", true, d, NULL);
	} else if (a->cred_login) {
		snprintf(d, sizeof(d), "%s has a login in %s", a->cli, a->cred_login);
		doctor_check(r, "credential", true, d, NULL);
	} else {
		snprintf(f, sizeof(f), "export %s=... in the shell that runs cli-sandbox (or log in once in the interactive profile)",
			 a->cred_var ? a->cred_var : "THE_KEY");
		doctor_check(r, "credential", false, a->cred_error ? a->cred_error : "no credential", f);
	}
}

/* workspace: writable by the sandbox user, not merely by you; ownership: whose
 * the agent's files will be (a note, not a failure); the limits. */
static void check_workspace(struct doctor_report *r, const struct doctor_args *a)
{
	char d[TEXT_MAX * 3], f[TEXT_MAX * 5], q[TEXT_MAX * 4], uid[32];

	snprintf(uid, sizeof(uid), "%.*s", (int)strcspn(a->sandbox_user, ":"), a->sandbox_user);
	if (a->workspace_error || !a->workspace) {
		doctor_check(r, "workspace", false, a->workspace_error ? a->workspace_error : "no workspace",
			     "pass --workspace DIR with your project directory");
	} else if (!a->writable || strcmp(a->writable, "yes") != 0) {
		quoted(a->workspace, q, sizeof(q));
		snprintf(d, sizeof(d), "%s is not writable by the sandbox user, uid %s (%s)", a->workspace, a->sandbox_user, a->how ? a->how : "");
		snprintf(f, sizeof(f), "let uid %s write it (e.g. chmod u+w, or as root: setfacl -m u:%s:rwx %s), or pass --workspace DIR", uid, uid, q);
		doctor_check(r, "workspace", false, d, f);
	} else {
		snprintf(d, sizeof(d), "%s is writable by the sandbox user, uid %s (%s)", a->workspace, a->sandbox_user, a->how ? a->how : "");
		doctor_check(r, "workspace", true, d, NULL);
	}
	if (a->ownership && *a->ownership) {
		doctor_check(r, "ownership", true, a->ownership, NULL);
	} else {
		snprintf(d, sizeof(d), "files the agent writes belong to you (uid %s)", a->sandbox_user);
		doctor_check(r, "ownership", true, d, NULL);
	}
	doctor_check(r, "limits", true, a->limits, NULL);
}

/* The options: each names one field; --keys-in alone takes no value. */
static int parse(int argc, char **argv, struct doctor_args *a)
{
	static const struct {
		const char *opt;
		size_t off;
	} opts[] = {
#define O(o, f) { o, offsetof(struct doctor_args, f) }
		O("--cli", cli), O("--image", image), O("--profile", profile), O("--engine", engine),
		O("--engine-why", engine_why), O("--engine-error", engine_error), O("--url", url), O("--host-url", host_url),
		O("--host-addr", host_addr), O("--host-error", host_error), O("--endpoint", endpoint),
		O("--credential", cred_vars), O("--credential-login", cred_login), O("--credential-error", cred_error),
		O("--credential-var", cred_var), O("--workspace", workspace), O("--writable", writable), O("--how", how),
		O("--workspace-error", workspace_error), O("--sandbox-user", sandbox_user), O("--ownership", ownership),
		O("--limits", limits),
#undef O
	};

	memset(a, 0, sizeof(*a));
	for (int i = 1; i < argc; i++) {
		size_t k = 0;

		if (strcmp(argv[i], "--keys-in") == 0) {
			a->keys_in = true;
			continue;
		}
		while (k < sizeof(opts) / sizeof(opts[0]) && strcmp(argv[i], opts[k].opt) != 0)
			k++;
		if (k == sizeof(opts) / sizeof(opts[0]) || i + 1 >= argc)
			return ctl_usage("doctor: unknown or incomplete argument '%.64s': see cli-sandbox-ctl doctor --help", argv[i]);
		*(const char **)((char *)a + opts[k].off) = argv[++i];
	}
	if (!a->cli || !cs_cli_by_name(a->cli) || !a->image || !a->profile || !a->sandbox_user || !a->limits)
		return ctl_usage("doctor needs --cli CLI, --image, --profile, --sandbox-user and --limits: run it as cli-sandbox doctor");
	if (a->engine && !a->engine_why)
		a->engine_why = "chosen";
	if (a->url && !*a->url)
		a->url = NULL;
	return 0;
}

int cmd_doctor(int argc, char **argv)
{
	struct doctor_args a;
	struct doctor_report r;
	bool json, engine_ok, image_ok;
	int rc;

	if (ctl_help(argc, argv, help))
		return 0;
	json = ctl_take_json(&argc, argv);
	if ((rc = parse(argc, argv, &a)) != 0)
		return rc;
	doctor_begin(&r, stdout, json);
	engine_ok = check_engine(&r, &a);
	image_ok = check_image(&r, &a, engine_ok);
	check_endpoint(&r, &a, image_ok);
	check_credential(&r, &a, check_path(&r, &a, engine_ok));
	check_workspace(&r, &a);
	return doctor_end(&r);
}
