/* cli-sandbox-init: the image's ENTRYPOINT and PID 1.
 *
 * environment -> config -> policy -> ruleset model -> (nft text | JSON |
 * netlink batch) -> privilege drop -> the command.  The dry-run and the real
 * start share every stage but the last renderer. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "caps/drop.h"
#include "caps/user_db.h"
#include "entrypoint/config.h"
#include "entrypoint/exec_plan.h"
#include "entrypoint/init.h"
#include "entrypoint/plan.h"
#include "entrypoint/resolver.h"
#include "entrypoint/status.h"
#include "netfilter/apply.h"
#include "netfilter/ruleset_build.h"
#include "profiles/policy.h"

enum mode { MODE_START, MODE_CHECK, MODE_DRY_NFT, MODE_DRY_JSON };

static const char usage[] =
	"usage: cli-sandbox-init [--dry-run[=nft|json]] [--check] [--help] [--version] [--] [COMMAND [ARG...]]\n"
	"\n"
	"Programs an egress firewall, sheds every privilege, then runs COMMAND (default: claude)\n"
	"as an unprivileged user, pointed at the model gateway.\n"
	"\n"
	"  --check              validate the configuration, print a summary; exit 0 or 78\n"
	"  --dry-run[=nft|json] print the plan and the exact ruleset a start programs; change nothing\n"
	"  --help, --version\n"
	"\n"
	"environment:\n"
	"  CLI_SANDBOX_EGRESS_PROFILE      managed (default) | interactive\n"
	"  TASK_AGENT_MODEL_BASE_URL       http(s)://A.B.C.D[:PORT][/PATH]; required when managed\n"
	"  CLI_SANDBOX_USER                user name or uid[:gid] (default node; never root)\n"
	"  CLI_SANDBOX_ALLOW               interactive: extra name[:port] or a.b.c.d[/len][:port], comma-separated\n"
	"  CLI_SANDBOX_ALLOW_HOST_NETWORK  interactive: true opens the default gateway's /24\n"
	"  SKIP_EGRESS_FIREWALL            interactive: true programs no firewall at all\n"
	"  CLI_SANDBOX_PROFILE_DIR         provider range files (default /etc/cli-sandbox/profiles)\n"
	"\n"
	"exit: 78 configuration error, 71 firewall or privilege drop failed, 126/127 command\n"
	"not executable/not found, otherwise the command's status (128+N for signal N).\n";

static int die(const struct cs_error *err)
{
	cs_print_error(err);
	return err->status;
}

/* Options end at the first non-option: everything after is the command's. */
static int parse_args(int argc, char **argv, enum mode *mode, int *cmd_index, struct cs_error *err)
{
	int i;

	*mode = MODE_START;
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--") == 0) {
			i++;
			break;
		} else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			fputs(usage, stdout);
			exit(0);
		} else if (strcmp(a, "--version") == 0) {
			printf("cli-sandbox-init %s\n", CLI_SANDBOX_VERSION);
			exit(0);
		} else if (strcmp(a, "--check") == 0 && *mode == MODE_START) {
			*mode = MODE_CHECK;
		} else if ((strcmp(a, "--dry-run") == 0 || strcmp(a, "--dry-run=nft") == 0) && *mode == MODE_START) {
			*mode = MODE_DRY_NFT;
		} else if (strcmp(a, "--dry-run=json") == 0 && *mode == MODE_START) {
			*mode = MODE_DRY_JSON;
		} else {
			return cs_fail(err, CS_EXIT_CONFIG, "unknown or repeated option '%.40s'; see cli-sandbox-init --help", a);
		}
	}
	*cmd_index = i;
	return 0;
}

static int inherited_groups(gid_t *groups, size_t max, size_t *n, struct cs_error *err)
{
	int got = getgroups((int)max, groups);

	if (got < 0)
		return cs_fail(err, CS_EXIT_CONFIG, "the process has more than %zu supplementary groups; start it with fewer --group-add", max);
	*n = (size_t)got;
	return 0;
}

static int start(const struct start_plan *plan, char *const envp[], struct cs_error *err)
{
	struct drop_result dropped;
	char **env;
	char dests[512];

	if (plan->policy->firewall) {
		if (firewall_apply(plan->ruleset, err))
			return -1;
		plan_describe_destinations(plan->policy, dests, sizeof(dests));
		cs_info("firewall up: profile=%s allow=[%s] sets=%zu rules=%zu sha256=%s",
			cs_profile_name(plan->cfg->profile), dests, plan->ruleset->n_sets,
			plan->ruleset->chains[0].n_rules + plan->ruleset->chains[1].n_rules +
			plan->ruleset->chains[2].n_rules, plan->digest);
	} else {
		cs_warn("SKIP_EGRESS_FIREWALL=true: NO FIREWALL, egress is completely open (trusted local diagnostics only)");
	}
	env = exec_plan_environ(plan->exec, envp);
	if (!env)
		return cs_fail(err, CS_EXIT_OSERR, "out of memory preparing the command's environment");
	if (privileges_drop(plan->user, &dropped, err)) {
		exec_environ_free(env);
		return -1;
	}
	if (!dropped.bounding_cleared)
		cs_info("CAP_SETPCAP was not granted: the bounding set is left as started, no_new_privs keeps it unusable");
	if (plan->pid1)
		exit(init_supervise(plan->exec->argv, env));
	exec_command(plan->exec->argv, env, err);
	exec_environ_free(env);
	return -1;
}

/* --check and --dry-run: print the plan of a start without starting. */
static int report(enum mode mode, const struct start_plan *plan)
{
	int rc;

	switch (mode) {
	case MODE_CHECK:
		plan_print_summary(plan, stdout);
		rc = 0;
		break;
	case MODE_DRY_NFT:
		rc = plan_print_nft(plan, stdout);
		break;
	default:
		rc = plan_print_json(plan, stdout);
		break;
	}
	return rc || fflush(stdout) ? CS_EXIT_OSERR : 0;
}

int main(int argc, char **argv, char **envp)
{
	struct cs_error err = { 0 };
	struct cs_config cfg;
	struct cs_user user;
	struct policy policy = { 0 };
	struct nf_ruleset rs = { 0 };
	struct exec_plan exec = { 0 };
	struct start_plan plan = { 0 };
	struct policy_env penv = { .resolve = resolver_getaddrinfo,
				   .resolv_conf = "/etc/resolv.conf",
				   .route_table = "/proc/net/route" };
	gid_t groups[CS_MAX_GROUPS];
	size_t n_groups = 0;
	enum mode mode = MODE_START;
	int cmd = argc, rc;
	bool pid1 = getpid() == 1;

	if (pid1)
		init_prepare_signals();
	if (parse_args(argc, argv, &mode, &cmd, &err) || config_load(envp, &cfg, &err) ||
	    inherited_groups(groups, CS_MAX_GROUPS, &n_groups, &err) ||
	    user_resolve(&cfg.user, "/etc/passwd", "/etc/group", groups, n_groups, &user, &err))
		return die(&err);
	/* The interactive profile opens only the names of the CLI being run. */
	penv.command = cmd < argc ? argv[cmd] : "claude";
	if (mode == MODE_CHECK)
		penv.resolve = NULL;  /* --check touches nothing, the network included */
	if (policy_build(&cfg, &penv, &policy, &err))
		return die(&err);
	plan = (struct start_plan){ .cfg = &cfg, .user = &user, .policy = &policy,
				    .ruleset = policy.firewall ? &rs : NULL, .exec = &exec,
				    .pid1 = pid1 };
	if ((policy.firewall && ruleset_build(&policy, &rs, &err)) ||
	    exec_plan_build(&cfg, &user, envp, argv + cmd, PI_EXTENSION_PATH, &exec, &err) ||
	    (plan_digest(&plan) && cs_fail(&err, CS_EXIT_OSERR, "out of memory computing the ruleset digest")))
		rc = die(&err);
	else if (mode != MODE_START)
		rc = report(mode, &plan);
	else
		rc = start(&plan, envp, &err) ? die(&err) : CS_EXIT_OSERR;  /* start() returns only on failure */
	exec_plan_free(&exec);
	ruleset_free(&rs);
	policy_free(&policy);
	return rc;
}
