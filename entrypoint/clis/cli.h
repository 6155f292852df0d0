/* The CLIs the init knows, one table, one row per CLI, each row in a file of
 * its own (entrypoint/clis/NAME.c) holding everything the init knows of that
 * CLI: how it is pointed at the model gateway, its autonomy in each profile,
 * its nested sandbox, its state folder and first-run help, its section of the
 * interactive profile, and the words the dry-run plan and the start line use
 * for all of that.  The evidence for every name is in docs/cli-wiring.md.
 *
 * Adding a CLI: a new file with its row, the row in the table (table.c), its
 * section in profiles/interactive.json, its image line and its tests.  A unit
 * test (tests/unit/test_clis.c) walks the table and fails when a row lacks an
 * entry that the others have.
 *
 * The operator always wins: variables are set only when the operator has not
 * set them; arguments are inserted right after argv[0], so the operator's own
 * later arguments still win; the autonomy rules leave alone whatever the
 * operator chose by flag or config file. */
#ifndef CLI_SANDBOX_CLIS_CLI_H
#define CLI_SANDBOX_CLIS_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "base/config.h"
#include "base/status.h"
#include "caps/user_db.h"
#include "entrypoint/plan.h"
#include "entrypoint/userns_probe.h"

/* Where the image installs pi's base-URL extension (image/pi-base-url.js). */
#define PI_EXTENSION_PATH "/usr/local/share/cli-sandbox/pi-base-url.js"

#define CLI_MAX_VARS 5
#define CLI_MAX_KEY_COPIES 2

/* What a CLI's rules read when the plan is built. */
struct cli_start {
	const struct cs_config *cfg;
	const struct cs_user *user;
	char *const *envp;
	char *const *argv;         /* the operator's command, argv[0] first */
	const char *pi_extension;  /* the path checked for pi's extension */
};

/* The result of a first run's preparation; what[] says what was done, or
 * why it was left alone. */
enum first_run_result { FIRST_RUN_UNCHANGED, FIRST_RUN_WRITTEN, FIRST_RUN_LEFT_ALONE };

typedef int cli_plan_fn(const struct cli_start *s, struct command *plan, struct cs_error *err);

struct cli {
	const char *name;             /* argv[0]'s basename */
	const char *profile_section;  /* its section ("clis" key) of profiles/interactive.json */

	/* Gateway wiring, both profiles: variables set to the model URL, a
	 * config key codex takes as -c KEY="URL", and anything else (wire). */
	const char *base_url_vars[3];
	const char *base_url_suffix;  /* appended to the URL for those variables, or NULL */
	const char *base_url_config;
	cli_plan_fn *wire;
	/* Managed only: variables and -c values that keep the CLI quiet. */
	const char *quiet_vars[CLI_MAX_VARS][2];
	const char *quiet_args[CLI_MAX_VARS];
	/* Both profiles: {NAME, FROM}, NAME gets FROM's value when FROM is set
	 * and NAME is not (a key one of the CLI's commands reads under another
	 * name; the plan shows the names only). */
	const char *key_copies[CLI_MAX_KEY_COPIES][2];

	/* Autonomy: no prompts in managed (nobody is there to answer them),
	 * which writes its own note; the CLI's own prompts in interactive, where
	 * the init sets nothing and the plan only says so (interactive_note). */
	cli_plan_fn *managed_autonomy;
	const char *interactive_note;
	/* The CLI's own nested sandbox: planned with the command (a placeholder
	 * in argv), decided after the drop from the user-namespace probe. */
	cli_plan_fn *nested_sandbox;
	int (*decide_sandbox)(struct command *plan, const struct userns_probe *probe, struct cs_error *err);

	/* State folder: the variable that names it and its place under HOME;
	 * "" and "" for a CLI that keeps its state where it wants. */
	const char *state_var;
	const char *state_dir;
	/* First run on a terminal through the gateway (entrypoint/first_run.h):
	 * prepares the state folder dir; the dry-run plan's line for it ("":
	 * nothing to say). */
	enum first_run_result (*first_run)(const char *dir, char *const env[], char *what, size_t len);
	const char *first_run_plan;
};

/* The table, NULL-terminated, and a row by argv[0]'s basename (NULL: any
 * other command). */
extern const struct cli *const cli_table[];
const struct cli *cli_find(const char *argv0);

/* For rows with nothing to do at a step. */
cli_plan_fn cli_plan_nothing;
int cli_no_nested_sandbox(struct command *plan, const struct userns_probe *probe, struct cs_error *err);
enum first_run_result cli_first_run_nothing(const char *dir, char *const env[], char *what, size_t len);

/* The state files' preparation of claude and codex, for the unit tests:
 * claude: in DIR/.claude.json, hasCompletedOnboarding=true when the key is
 * absent, and, with api_key, the key's approval (its last 20 characters in
 * customApiKeyResponses.approved) unless it is approved or rejected already.
 * Every other value stays as it is.  api_key NULL: a token, nothing to approve.
 * codex: DIR/auth.json holding an API-key login, the file `codex login
 * --with-api-key` writes; only when DIR has no auth.json at all. */
enum first_run_result first_run_claude(const char *dir, const char *api_key, char *what, size_t len);
enum first_run_result first_run_codex(const char *dir, const char *api_key, char *what, size_t len);

#endif
