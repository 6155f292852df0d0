/* cli-sandbox-init: the image's ENTRYPOINT and PID 1.
 *
 * main() is the pipeline, one stage per statement, in order:
 *   arguments -> configuration -> credentials file -> user -> command -> policy -> ruleset
 *   model -> digest | report (--check, --dry-run) | firewall -> block log
 *   -> (PID 1: fork the command's process) -> privilege drop -> seccomp
 *   filter -> the irreversible boundary -> first run (as the user) -> launch.
 * The Kubernetes split (entrypoint/split.h) changes the last stages only:
 * --firewall-only stops after the firewall; --verify-only replaces firewall
 * and drop by proving that both are already done.
 * The dry-run and the real start share every stage up to the last renderer
 * (the report prints nft text or JSON, the firewall sends the netlink
 * batch).  Each stage is a library call or a thin wrapper below it. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/config.h"
#include "base/status.h"
#include "caps/drop.h"
#include "caps/sandbox_filter.h"
#include "caps/user_db.h"
#include "entrypoint/block_log.h"
#include "entrypoint/build_info.h"
#include "entrypoint/command.h"
#include "entrypoint/credentials_stage.h"
#include "entrypoint/firewall_stage.h"
#include "entrypoint/first_run.h"
#include "entrypoint/pipeline.h"
#include "entrypoint/report.h"
#include "entrypoint/split.h"
#include "entrypoint/supervisor.h"
#include "netfilter/apply.h"
#include "netfilter/ruleset_build.h"
#include "profiles/policy.h"
#include "profiles/resolver.h"

enum mode { MODE_START, MODE_CHECK, MODE_DRY_NFT, MODE_DRY_JSON, MODE_FIREWALL_ONLY, MODE_VERIFY_ONLY };

struct options {
	enum mode mode;
	char **command;  /* the command and its arguments; empty for the default */
};

static const char usage[] =
	"usage: cli-sandbox-init [--dry-run[=nft|json] | --check | --firewall-only | --verify-only]\n"
	"                        [--help] [--version] [--] [COMMAND [ARG...]]\n"
	"\n"
	"Programs an egress firewall, sheds every privilege, then runs COMMAND (default: " CS_DEFAULT_COMMAND ")\n"
	"as an unprivileged user, pointed at the model gateway.\n"
	"\n"
	"  --check              validate the configuration, print a summary; exit 0 or 78\n"
	"  --dry-run[=nft|json] print the plan and the exact ruleset a start programs; change nothing\n"
	"  --firewall-only      Kubernetes init container: program the firewall, print its line, exit 0\n"
	"                       (COMMAND is not run; it picks the interactive profile's CLI names)\n"
	"  --verify-only        Kubernetes agent container, started with no privilege: prove that and\n"
	"                       the firewall by behaviour (78/71 otherwise), then run COMMAND as PID 1;\n"
	"                       managed, or interactive with CLI_SANDBOX_DNS=pinned (the pinning proven)\n"
	"  --help, --version\n"
	"\n"
	"environment:\n"
	"  CLI_SANDBOX_EGRESS_PROFILE      managed (default) | interactive\n"
	"  TASK_AGENT_MODEL_BASE_URL       http(s)://A.B.C.D[:PORT][/PATH]; required when managed\n"
	"  CLI_SANDBOX_USER                user name or uid[:gid] (default " CS_DEFAULT_USER "; never root)\n"
	"  CLI_SANDBOX_ALLOW               interactive: extra name[:port] or a.b.c.d[/len][:port], comma-separated\n"
	"  CLI_SANDBOX_ALLOW_HOST_NETWORK  interactive: true opens the default gateway's /24\n"
	"  SKIP_EGRESS_FIREWALL            interactive: true programs no firewall at all\n"
	"  CLI_SANDBOX_PROFILE_DIR         provider range files (default " CS_DEFAULT_PROFILE_DIR ")\n"
	"  CLI_SANDBOX_ALLOW_USERNS        true lets the command create user namespaces (codex's sandbox)\n"
	"  CLI_SANDBOX_DNS                 interactive: pinned, with the pinning resolver beside the sandbox\n"
	"  CLI_SANDBOX_RESOLVER_UID        with pinned: the resolver's uid, which alone may send DNS upstream\n"
	"  CLI_SANDBOX_DNS_UPSTREAM        with pinned: the resolver's upstreams (A.B.C.D[,...]) when resolv.conf\n"
	"                                  names 127.0.0.1 (a pod); otherwise resolv.conf's nameservers\n"
	"\n"
	"credentials: " CS_CREDENTIALS_PATH ", when present, adds NAME=VALUE lines (NAME ending in\n"
	"  _API_KEY or _TOKEN) to the command's environment; the container's own variables win.\n"
	"\n"
	"exit: 78 configuration error, 71 firewall or privilege drop failed, 126/127 command\n"
	"not executable/not found, otherwise the command's status (128+N for signal N).\n";

/* Options end at the first non-option: everything after is the command's. */
static int parse_args(int argc, char **argv, struct options *opt, struct cs_error *err)
{
	enum mode *mode = &opt->mode;
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
			build_info_print(stdout);
			exit(0);
		} else if (strcmp(a, "--check") == 0 && *mode == MODE_START) {
			*mode = MODE_CHECK;
		} else if ((strcmp(a, "--dry-run") == 0 || strcmp(a, "--dry-run=nft") == 0) && *mode == MODE_START) {
			*mode = MODE_DRY_NFT;
		} else if (strcmp(a, "--dry-run=json") == 0 && *mode == MODE_START) {
			*mode = MODE_DRY_JSON;
		} else if (strcmp(a, "--firewall-only") == 0 && *mode == MODE_START) {
			*mode = MODE_FIREWALL_ONLY;
		} else if (strcmp(a, "--verify-only") == 0 && *mode == MODE_START) {
			*mode = MODE_VERIFY_ONLY;
		} else {
			return cs_fail(err, CS_EXIT_CONFIG, "unknown or repeated option '%.40s'; see cli-sandbox-init --help", a);
		}
	}
	opt->command = argv + i;  /* empty: the default command */
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

/* The unprivileged identity, with the groups the container was started with. */
static int resolve_user(struct pipeline *pl, struct cs_error *err)
{
	gid_t groups[CS_MAX_GROUPS];
	size_t n = 0;

	if (inherited_groups(groups, CS_MAX_GROUPS, &n, err) ||
	    user_resolve(&pl->cfg.user, "/etc/passwd", "/etc/group", groups, n, &pl->user, err))
		return -1;
	/* the pinning resolver's uid alone may send DNS upstream: the command
	 * must never hold it */
	if (pl->cfg.dns_pinned && pl->user.uid == pl->cfg.resolver_uid)
		return cs_fail(err, CS_EXIT_CONFIG, "the command's user (uid %u) is the pinning resolver's uid (CLI_SANDBOX_RESOLVER_UID); give the resolver a uid of its own",
			       (unsigned)pl->user.uid);
	return 0;
}

/* The command line and the whole environment it is started with. */
static int plan_command(struct pipeline *pl, char *const envp[], char *const argv[], struct cs_error *err)
{
	if (command_build(&pl->cfg, &pl->user, envp, argv, PI_EXTENSION_PATH, &pl->command, err))
		return -1;
	pl->env = command_environ(&pl->command, envp);
	return pl->env ? 0 : cs_fail(err, CS_EXIT_OSERR, "out of memory preparing the command's environment");
}

/* The interactive profile opens only the names of the CLI being run;
 * --check touches nothing, the network included, so it resolves no name;
 * neither does --verify-only: the managed profile has no names, and the
 * pinned interactive one proves its names through the resolver instead. */
static int isolate_resolver(void *user, struct cs_error *err)
{
	/* The user and no privilege first, then the child's own seccomp
	 * filter: glibc parses DNS answers from the network in that process. */
	return privileges_isolate(user, err) || resolver_filter_install(err) ? -1 : 0;
}

static int build_policy(struct pipeline *pl, enum mode mode, struct cs_error *err)
{
	/* The resolver child drops to the sandbox user before it resolves. */
	struct policy_env penv = { .resolve = mode == MODE_CHECK || mode == MODE_VERIFY_ONLY ? NULL : resolver_getaddrinfo,
				   .isolation = { isolate_resolver, &pl->user },
				   .resolv_conf = "/etc/resolv.conf",
				   .nsswitch_conf = "/etc/nsswitch.conf",
				   .hosts = "/etc/hosts",
				   .route_table = "/proc/net/route",
				   .command = pl->command.argv[0] };

	return policy_build(&pl->cfg, &penv, &pl->policy, err);
}

static int build_ruleset(struct pipeline *pl, struct cs_error *err)
{
	return pl->policy.firewall ? ruleset_build(&pl->policy, &pl->ruleset, err) : 0;
}

/* --check and --dry-run: print what a start would do, change nothing. */
static int report(enum mode mode, const struct pipeline *pl)
{
	int rc = 0;

	errno = 0;
	if (mode == MODE_CHECK)
		report_summary(pl, stdout);
	else if (mode == MODE_DRY_NFT)
		rc = report_nft(pl, stdout);
	else
		rc = report_json(pl, stdout);
	if (rc || fflush(stdout) || ferror(stdout)) {
		struct cs_error err;

		cs_fail(&err, CS_EXIT_OSERR, "cannot write the %s to stdout (%s); check where stdout goes (a full disk, a closed pipe)",
			mode == MODE_CHECK ? "summary" : "dry-run", errno ? strerror(errno) : "write error");
		return cs_print_error(&err);
	}
	return 0;
}

static int program_firewall(struct pipeline *pl, struct cs_error *err)
{
	if (!pl->policy.firewall) {
		cs_warn("SKIP_EGRESS_FIREWALL=true: NO FIREWALL, egress is completely open (trusted local diagnostics only)");
		return 0;
	}
	return pipeline_program_firewall(pl, err);
}

static int shed_privileges(const struct pipeline *pl, struct cs_error *err)
{
	struct drop_result dropped;

	if (privileges_drop(&pl->user, &dropped, err))
		return -1;
	if (!dropped.bounding_cleared)
		cs_info("CAP_SETPCAP was not granted: the bounding set is left as started, no_new_privs keeps it unusable");
	return 0;
}

/* Just past the boundary, before the command starts: codex's own sandbox
 * is decided by trying it as the command's identity (userns_probe), so that
 * whatever the container and any seccomp filter installed before this point
 * deny, the probe is denied too.  A failed probe is an answer
 * (danger-full-access) when the init chooses the sandbox; when the operator
 * chose one that needs user namespaces, it stops the start (78) before the
 * command runs: the one stop past the boundary, since a CLI whose sandbox
 * runs nothing would otherwise exit 0 having done nothing.  The decision and
 * its evidence go on the start line. */
static int settle_nested_sandbox(struct pipeline *pl, struct cs_error *err)
{
	struct userns_probe probe;

	if (pl->command.autonomy[0])
		cs_info("autonomy: %s", pl->command.autonomy);
	if (command_wants_probe(&pl->command)) {
		userns_probe_run(&probe);
		if (command_decide_sandbox(&pl->command, &probe, err))
			return -1;
	}
	if (pl->command.sandbox[0])
		cs_info("%s", pl->command.sandbox);
	return 0;
}

/* The seccomp filter (caps/sandbox_filter.h), after the drop: it binds the
 * command and, installed on PID 1's side too (supervisor_run), PID 1. */
static int confine(const struct pipeline *pl, struct cs_error *err)
{
	return sandbox_filter_install(pl->cfg.allow_userns, err);
}

/* The init becomes the command; under PID 1 (supervised), the command's
 * process does, once PID 1 has released it.  Returns only when the exec
 * failed: 126/127. */
static int launch(const struct pipeline *pl, bool supervised)
{
	struct cs_error err = { 0 };

	if (supervised)
		supervisor_child_exec(pl->command.argv, pl->env, &err);
	else
		command_exec(pl->command.argv, pl->env, &err);
	return cs_print_error(&err);
}

int main(int argc, char **argv, char **envp)
{
	/* Static, not on the stack: of its 140 KiB of room only what a start
	 * writes ever becomes resident, and PID 1 keeps it all its life. */
	static struct pipeline pl;
	struct options opt = { 0 };
	struct cs_error err = { 0 };
	bool supervised = false;  /* the command's process, forked by PID 1 */
	int status;

	pl.pid1 = getpid() == 1;
	if (pl.pid1)
		supervisor_prepare_signals();  /* first: no signal may be lost before supervision */

	/* Setup: pure stages, nothing is changed yet.  Any failure stops the
	 * start with its one line and status; the command never runs. */
	if (parse_args(argc, argv, &opt, &err) ||
	    config_load(envp, &pl.cfg, &err) ||
	    credentials_stage(CS_CREDENTIALS_PATH, envp, &pl.creds, &pl.start_env, &err) ||
	    resolve_user(&pl, &err) ||
	    plan_command(&pl, pl.start_env, opt.command, &err) ||
	    build_policy(&pl, opt.mode, &err) ||
	    build_ruleset(&pl, &err) ||
	    pipeline_digest(&pl, &err))
		goto stop;
	if (opt.mode == MODE_CHECK || opt.mode == MODE_DRY_NFT || opt.mode == MODE_DRY_JSON) {
		status = report(opt.mode, &pl);
		goto out;
	}
	if (opt.mode == MODE_FIREWALL_ONLY) {
		/* The init container: the firewall is the whole job. */
		status = split_firewall_only(&pl, &err) ? cs_print_error(&err) : 0;
		goto out;
	}

	/* The real start changes the kernel's state; a failure still stops it
	 * (71) before the command runs.  --verify-only changes nothing: it
	 * proves that the pod did both (78/71 otherwise), and has no block log
	 * (binding the NFLOG group needs CAP_NET_ADMIN). */
	if (opt.mode == MODE_VERIFY_ONLY ? split_verify_only(&pl, "/etc/resolv.conf", &err)
	    : program_firewall(&pl, &err) ||
	      block_log_open(&pl))  /* never fails: a problem is a warning */
		goto stop;
	/* PID 1 forks the command's process now, so that each drops to an
	 * identity of its own; PID 1 then supervises until the command ends
	 * (and reads the block log, whose descriptors the command's process
	 * closes before its exec).  The bounding set is emptied once, before
	 * the fork, for both (caps/drop.h). */
	if (pl.pid1) {
		pid_t child;

		if (opt.mode != MODE_VERIFY_ONLY && privileges_empty_bounding_set(&err))
			goto stop;
		child = supervisor_fork(&err);
		if (child < 0)
			goto stop;
		if (child > 0) {
			pipeline_shed_start(&pl);  /* PID 1 needs none of the start's data from here on */
			status = supervisor_run(child, &pl.user, pl.cfg.allow_userns);
			goto out;
		}
		supervised = true;
	}
	/* --verify-only holds nothing to drop (split_verify_only proved it). */
	if ((opt.mode != MODE_VERIFY_ONLY && shed_privileges(&pl, &err)) ||
	    confine(&pl, &err))
		goto stop;

	/* ---- The irreversible boundary ----------------------------------
	 * The firewall is up and every privilege is gone for good.  From here
	 * on the init never stops on an error of its own: the supervisor only
	 * warns, and the container ends with the command's status. */
	if (settle_nested_sandbox(&pl, &err))
		goto stop;
	first_run_prepare(pl.command.cli, pl.cfg.has_url, pl.env);  /* as the user; only warns */
	status = launch(&pl, supervised);
	goto out;
stop:
	status = cs_print_error(&err);
out:
	pipeline_free(&pl);
	return status;
}
