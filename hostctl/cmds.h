/* The commands of cli-sandbox-ctl, one file each, and what they share:
 * the one error style ("cli-sandbox-ctl: error: <problem>; <fix>", exit 2
 * as the runner's die, 71 for a failure of this host) and JSON output. */
#ifndef CLI_SANDBOX_HOSTCTL_CMDS_H
#define CLI_SANDBOX_HOSTCTL_CMDS_H

#include <jansson.h>
#include <stdbool.h>

#include "base/status.h"
#include "hostctl/limits.h"

#define CTL_EXIT_USAGE 2

int cmd_endpoints(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_broker(int argc, char **argv);
int cmd_session(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_models(int argc, char **argv);
int cmd_version(int argc, char **argv);
int cmd_platform(int argc, char **argv);
int cmd_quickstart(int argc, char **argv);
int cmd_init(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_limits(int argc, char **argv);
int cmd_ping_report(int argc, char **argv);
int cmd_demo_report(int argc, char **argv);
int cmd_runner(int argc, char **argv);
int cmd_credentials(int argc, char **argv);
int cmd_host_address(int argc, char **argv);
int cmd_usage(int argc, char **argv);
int cmd_protect(int argc, char **argv);

/* The run's limits as the runner gives them (cmd_limits.c): the options
 * (--pids-limit, --memory, --cpus, --nofile, --tmp-size, in limit_options'
 * order; NULL or "" none), else CLI_SANDBOX_PIDS_LIMIT, _MEMORY, _CPUS,
 * _NOFILE, _TMP_SIZE, else this host's defaults (engine: asked for its CPUs
 * and memory where /proc/meminfo is missing); text gets doctor's line. */
#define LIMIT_OPTS 5
extern const char *const limit_options[LIMIT_OPTS];
int limits_for_run(const char *engine, const char *const opts[LIMIT_OPTS], struct limits *l, char *text, size_t len,
		   struct cs_error *err);

/* Runs the command argv[0] (main.c's table) with its words; its status. */
int ctl_dispatch(int argc, char **argv);

/* Prints the error line and returns the exit status. */
int ctl_fail(const struct cs_error *err);
int ctl_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ctl_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints o (compact, one line) on stdout and frees it; returns 0. */
int ctl_print_json(json_t *o);
/* "--help"/"-h" among argv[1..]: prints help and returns true. */
bool ctl_help(int argc, char **argv, const char *help);
/* Removes "--json" from argv (in place); true when it was there. */
bool ctl_take_json(int *argc, char **argv);

#endif
