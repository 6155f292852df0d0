/* plan: one resolved plan for the runner. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cli_names.h"
#include "hostctl/cmds.h"
#include "hostctl/endpoint_file.h"
#include "hostctl/home.h"
#include "hostctl/plan.h"
#include "hostctl/plan_format.h"
#include "hostctl/probe.h"

static const char plan_help[] =
	"Usage: cli-sandbox-ctl plan --cli CLI [--endpoint NAME | --url URL [--key-env VAR] | --managed URL]\n"
	"                            [--keys-in] [--translator] [--runner] [--json]\n"
	"Prints the path CLI's requests take to the endpoint (default: the selected one), one\n"
	"KEY=VALUE a line for the runner (docs/hostctl.md), or one JSON object:\n"
	"  route=direct|broker|translator|refused; keys stay out (broker) unless --keys-in.\n"
	"--url probes URL (its key from --key-env VAR, sent to it alone) instead of a named endpoint;\n"
	"--managed takes URL as is (no probe: the API follows the CLI and the key exported).\n"
	"--translator: Messages in, through the translator (ping's and up's --keep-keys-out).\n"
	"--runner: a refusal is said in the lines only (reason, fix), for the runner to say.\n"
	"Exit 0 with a route, 2 when refused (the reason and fix on stderr too).\n";

/* The endpoint a plan is for: named, selected, or a probed URL. */
static int pick_endpoint(const char *name, const char *url, bool managed, const char *key_env, struct endpoint *out,
			 struct cs_error *err)
{
	char path[4096], cur[EP_NAME_MAX + 2];
	struct endpoints *eps;
	struct endpoint *e;

	memset(out, 0, sizeof(*out));
	if (url && managed) {
		if (check_url(url, strlen(url), err) != 0)
			return -1;
		snprintf(out->name, sizeof(out->name), "managed");
		snprintf(out->url, sizeof(out->url), "%s", url);
		return 0;
	}
	if (url) {
		enum verdict v;
		const char *key = key_env ? getenv(key_env) : NULL;

		if (check_url(url, strlen(url), err) != 0)
			return -1;
		if (key_env && !valid_key_env(key_env, strlen(key_env)))
			return cs_fail(err, CS_EXIT_CONFIG, "bad --key-env: give the NAME of the variable that holds the key");
		snprintf(out->name, sizeof(out->name), "url");
		snprintf(out->url, sizeof(out->url), "%s", url);
		if (key_env)
			snprintf(out->key_env, sizeof(out->key_env), "%s", key_env);
		if (probe_endpoint(url, key && *key ? key : NULL, &out->speaks, &v, err) != 0)
			return -1;
		if (v != VERDICT_OK)
			return cs_fail(err, CS_EXIT_CONFIG, "the probe of --url found no API it can use (%s): add it with cli-sandbox endpoints add NAME URL --type TYPE",
				       v == VERDICT_SILENT ? "no answer" : v == VERDICT_SAME_EVERYWHERE ? "every path answers alike" : "no API's shape");
		out->has_speaks = true;
		snprintf(out->type, sizeof(out->type), "%s", type_of_speaks(out->speaks));
		return 0;
	}
	if (!name) {
		home_current(cur, sizeof(cur));
		if (!cur[0])
			return cs_fail(err, CS_EXIT_CONFIG, "no endpoint selected: pass --endpoint NAME or select one with cli-sandbox endpoints use NAME");
		name = cur;
	}
	if (home_file("endpoints", path, sizeof(path), err) != 0 || !(eps = calloc(1, sizeof(*eps))))
		return -1;
	if (endpoints_load(path, eps, err) != 0) {
		free(eps);
		return -1;
	}
	e = endpoints_find(eps, name);
	if (e)
		*out = *e;
	free(eps);
	if (!e)
		return cs_fail(err, CS_EXIT_CONFIG, "no endpoint of that name in %s: list them with cli-sandbox endpoints list", path);
	return 0;
}

/* Only whether the person exported the variable with a value: the plan never sees a value. */
static bool exported(const char *name)
{
	const char *v = getenv(name);

	return v && *v;
}

int cmd_plan(int argc, char **argv)
{
	const char *cli = NULL, *name = NULL, *url = NULL, *key_env = NULL;
	bool json, managed = false, runner = false;
	struct plan_in in = { .is_set = exported };
	struct endpoint ep;
	struct plan p;
	struct cs_error err;
	char lines[8192];
	int rc;

	if (ctl_help(argc, argv, plan_help))
		return 0;
	json = ctl_take_json(&argc, argv);
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i];

		if (strcmp(o, "--keys-in") == 0 || strcmp(o, "--translator") == 0 || strcmp(o, "--runner") == 0) {
			*(o[2] == 'k' ? &in.keys_in : o[2] == 't' ? &in.translator : &runner) = true;
			continue;
		}
		if (i + 1 >= argc)
			return ctl_usage("usage: cli-sandbox-ctl plan --cli CLI [--endpoint NAME | --url URL] [--keys-in] [--json]");
		if (strcmp(o, "--cli") == 0)
			cli = argv[++i];
		else if (strcmp(o, "--endpoint") == 0)
			name = argv[++i];
		else if (strcmp(o, "--url") == 0 || strcmp(o, "--managed") == 0) {
			managed = managed || strcmp(o, "--managed") == 0;
			url = argv[++i];
		}
		else if (strcmp(o, "--key-env") == 0)
			key_env = argv[++i];
		else
			return ctl_usage("unknown argument for plan: use --cli, --endpoint, --url, --key-env, --keys-in or --json");
	}
	if (!cli || !cs_cli_by_name(cli))
		return ctl_usage("plan needs --cli claude, codex, pi, gemini or opencode");
	if (name && url)
		return ctl_usage("give --endpoint NAME or --url URL, not both");
	if (name && !valid_endpoint_name(name, strlen(name)))
		return ctl_usage("bad endpoint name: use letters, digits, '-', '_' and '.', starting with a letter or digit");
	if (pick_endpoint(name, url, managed, key_env, &ep, &err) != 0)
		return ctl_fail(&err);
	rc = plan_make_in(cli, &ep, &in, &p);
	if (json)
		ctl_print_json(plan_json(&p));
	else if (plan_lines(&p, lines, sizeof(lines)))
		fputs(lines, stdout);
	if (rc != 0 && runner)
		return CTL_EXIT_USAGE;
	if (rc != 0) {
		cs_fail(&err, CS_EXIT_CONFIG, "%s%s%s", p.reason, p.fix[0] ? "; try: " : "", p.fix);
		return ctl_fail(&err);
	}
	return 0;
}
